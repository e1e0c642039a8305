package training

import (
	"github.com/llpfc/llpfc/training/device"
	"github.com/llpfc/llpfc/training/loss"
	"github.com/llpfc/llpfc/training/methods"
	"github.com/llpfc/llpfc/training/models"
	"github.com/llpfc/llpfc/training/nn"
	"github.com/llpfc/llpfc/training/optim"
)

// The names below live in the rooms under training/ (nn, models, loss,
// optim); they are repeated here so that a Config can be written with
// this package alone, as experiments/ and cmd/ do.

// Model specification and architectures (training/nn, training/models).
type (
	ModelSpec = nn.ModelSpec
	Model     = nn.Model
)

// The registered architectures' names (models.ModelNames lists them).
const (
	ModelMLP      = models.ModelMLP
	ModelCNN      = models.ModelCNN
	ModelCNNBN    = models.ModelCNNBN
	ModelWRN164   = models.ModelWRN164
	ModelResNet18 = models.ModelResNet18
	ModelVGG16    = models.ModelVGG16
	ModelLLPGAND  = models.ModelLLPGAND
	ModelLLPGANG  = models.ModelLLPGANG
)

var (
	// ModelNames returns the registered architectures' names, sorted.
	ModelNames = models.ModelNames
	// BatchNormLayers counts the batch-norm layers a bnSweep drives.
	BatchNormLayers = models.BatchNormLayers
)

// Optimizers and learning-rate schedules (training/optim).
type (
	OptimizerConfig    = optim.Config
	Schedule           = optim.Schedule
	ConstantLR         = optim.ConstantLR
	MultiStep          = optim.MultiStep
	CosineWarmRestarts = optim.CosineWarmRestarts
)

// Loss options (training/loss, training/nn); a step's non-finite loss or
// gradient.
type (
	NonFiniteError = loss.NonFiniteError
	KLScale        = loss.KLScale
	VATRampup      = loss.VATRampup
	VATConfig      = loss.VATConfig
	BNStats        = nn.BNStats
	PVCLikelihood  = loss.PVCLikelihood
)

// The options' values.
const (
	KLScaleAuthors   = loss.KLScaleAuthors
	KLScalePaper     = loss.KLScalePaper
	VATRampupAuthors = loss.VATRampupAuthors
	VATRampupLLPVAT  = loss.VATRampupLLPVAT
	BNStatsMinibatch = nn.BNStatsMinibatch
	BNStatsChunk     = nn.BNStatsChunk
	PVCExact         = loss.PVCExact
	PVCFFT           = loss.PVCFFT
)

var (
	// ParseKLScale checks a KL scale name ("" is authors).
	ParseKLScale = loss.ParseKLScale
	// ParseVATRampup checks a consistency-weight schedule name.
	ParseVATRampup = loss.ParseVATRampup
	// ParseBNStats checks a batch-norm statistics name ("" is minibatch).
	ParseBNStats = nn.ParseBNStats
	// ParsePVCLikelihood checks an LLP-PVC likelihood name ("" is exact).
	ParsePVCLikelihood = loss.ParsePVCLikelihood
	// PaperVATConfig returns LLP-VAT's constants for a data set.
	PaperVATConfig = loss.PaperVATConfig
	// CheckDevice checks a Config.Device string's back-end name
	// (training/device) without opening it.
	CheckDevice = device.ParseName
	// CanExport reports whether an architecture's weights can be saved
	// (models.StateDict).
	CanExport = models.CanExport
)

// The methods' room (training/methods): a run's configuration and
// data, the seam a method implements, and the registry of methods'
// descriptors.
type (
	Config           = methods.Config
	TrainData        = methods.TrainData
	Method           = methods.Method
	StatefulMethod   = methods.StatefulMethod
	GroupingReporter = methods.GroupingReporter
	MethodEnv        = methods.Env
	MethodFactory    = methods.Factory
	Regrouping       = methods.Regrouping
	MethodDescriptor = methods.Descriptor
)

// The methods' names, each defined beside its implementation.
const (
	MethodLLPFCIdeal   = methods.LLPFCIdeal
	MethodLLPFCUniform = methods.LLPFCUniform
	MethodLLPFCApprox  = methods.LLPFCApprox
	MethodKL           = methods.KL
	MethodLLPVAT       = methods.LLPVAT
	MethodLLPGAN       = methods.LLPGAN
	MethodEasyLLP      = methods.EasyLLP
	MethodMixBag       = methods.MixBag
	MethodLLPPVC       = methods.LLPPVC
	Supervised         = methods.Supervised
)

var (
	// MethodNames returns the registered methods' names, sorted.
	MethodNames = methods.Names
	// LookupMethod returns a registered method's descriptor.
	LookupMethod = methods.Lookup
	// MinibatchWeights is LLPFC's minibatch weighting.
	MinibatchWeights = methods.MinibatchWeights
)

// Default values of Config fields left at zero.
const (
	DefaultRegroupEvery = methods.DefaultRegroupEvery
	DefaultChunkSize    = methods.DefaultChunkSize
	DefaultEvalBatch    = methods.DefaultEvalBatch
)

// The model selections of Config.Select.
type Selection = methods.Selection

const (
	SelectLast    = methods.SelectLast
	SelectBestVal = methods.SelectBestVal
)

// The methods' own settings (their keys in a cell's hyper).
const (
	SettingKLScale   = methods.SettingKLScale
	SettingBNStats   = methods.SettingBNStats
	SettingVATRampup = methods.SettingVATRampup
	SettingFlood     = methods.SettingFlood
	// SettingPVCLikelihood is LLP-PVC's likelihood (exact or the authors' FFT).
	SettingPVCLikelihood = methods.SettingPVCLikelihood
)

var (
	// MustLookupMethod returns the descriptor of a validated method name.
	MustLookupMethod = methods.MustLookup
	// ParseSelection parses last or best-val.
	ParseSelection = methods.ParseSelection
)
