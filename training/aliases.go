package training

import (
	"github.com/llpfc/llpfc/training/device"
	"github.com/llpfc/llpfc/training/loss"
	"github.com/llpfc/llpfc/training/models"
	"github.com/llpfc/llpfc/training/nn"
	"github.com/llpfc/llpfc/training/optim"
)

// The names below live in the rooms under training/ (issue 26: nn, models,
// loss, optim); they are repeated here so that a Config can be written with
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
