package executor

// Logger is where an Executor logs; *slog.Logger is one. The executor
// does not import log/slog, which would add some 450 KB to every binary
// built on it (RATIONALE.md, "A binary without log/slog and Go's
// resolver").
type Logger interface {
	Debug(msg string, args ...any)
	Error(msg string, args ...any)
}

type discardLogger struct{}

func (discardLogger) Debug(string, ...any) {}
func (discardLogger) Error(string, ...any) {}
