package dialect

// Dialect is the wire contract of one LLVM release, as far as it differs
// from the others.
type Dialect struct {
	// LLVM is the release's major version.
	LLVM int
	Messages
}

// Messages are the error texts a controller of the release sees verbatim.
type Messages struct {
	// DeserializeArgs is a wrapper's out-of-band error for argument bytes
	// that do not decode.
	DeserializeArgs string
}

// LLVM22 is LLVM 22.1's contract, measured against llvm-jitlink 22.1.8.
var LLVM22 = &Dialect{
	LLVM: 22,
	Messages: Messages{
		DeserializeArgs: "Could not deserialize arguments for wrapper function call",
	},
}

// Latest is the newest release orcrt speaks, the default where nothing
// identifies the controller.
var Latest = LLVM22
