package training

// The gorgonia version is pinned in go.mod (v0.9.18, together with
// go4.org/unsafe/assume-no-moving-gc, without which it panics at start under
// Go ≥ 1.21). This import keeps the module graph settled until the engine
// uses gorgonia directly.
import _ "gorgonia.org/gorgonia"
