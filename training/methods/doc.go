// Package methods is the methods' room of training/: every
// training objective — the LLPFC algorithms (Algorithms 1–3 of the paper),
// the baselines of App. `suppsec: exp` (KL, LLP-VAT, LLP-GAN), the newer
// methods (EasyLLP, MixBag, LLP-PVC), SqProp and the supervised ceiling — as
// one Descriptor registered beside its implementation, and the registry
// every other list of methods is read from: the command line's help and
// default minibatch, `llpfc methods`, the report's rows, the parity, op-list
// and finite-difference cases, the Python client. The committed grids name
// their methods instead, and a method's plot style is its descriptor's, so
// that registering one changes nothing committed. A method's own
// hyperparameters are declared in its descriptor (Setting, settings.go):
// each becomes a spec field, a part of the cell's key, a flag and a value
// the run reads (Config.Setting) from that declaration alone.
//
// A method implements Method on the model's gorgonia graph (Env) and
// compiles its programs on the run's device.Backend; the trainer (package
// training, above) owns the parameters, the optimizer, the schedule, the
// evaluation and the checkpoints. A loss of minibatches of bags computed
// from the network's outputs (a loss.BagObjective) becomes a method through
// RegisterBag alone: the shared bag minibatch, the chunked two passes and
// both back ends come with it (bagobjectives.go holds those that need
// nothing more). A run's configuration (Config) and data (TrainData) are
// defined here because the methods read them; package training re-exports
// them.
//
// Hand-written: the registry is a map of descriptors behind a lock, as the
// standard library's database/sql drivers and image formats are; no
// library of the project's offers one.
package methods
