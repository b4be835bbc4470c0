//go:build cgo

package main

import (
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"
	"unicode"
)

// logLevel orders log records as log/slog's levels do.
type logLevel int

const (
	levelDebug logLevel = iota
	levelInfo
	levelWarn
	levelError
)

var levelNames = [...]string{"DEBUG", "INFO", "WARN", "ERROR"}

// textLogger writes one record a line in log/slog's text format
// (time=… level=… msg=… key=value…), each line in one write. The
// executor does not link log/slog, which would add some 450 KB to its
// image, resident in full (RATIONALE.md, "A binary without log/slog and
// Go's resolver"). Safe for concurrent use.
type textLogger struct {
	mu  sync.Mutex
	w   io.Writer
	min logLevel
	buf []byte
}

func newTextLogger(w io.Writer, min logLevel) *textLogger { return &textLogger{w: w, min: min} }

func (l *textLogger) Debug(msg string, args ...any) { l.log(levelDebug, msg, args) }
func (l *textLogger) Info(msg string, args ...any)  { l.log(levelInfo, msg, args) }
func (l *textLogger) Warn(msg string, args ...any)  { l.log(levelWarn, msg, args) }
func (l *textLogger) Error(msg string, args ...any) { l.log(levelError, msg, args) }

func (l *textLogger) log(level logLevel, msg string, args []any) {
	if level < l.min {
		return
	}
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	b := append(l.buf[:0], "time="...)
	b = now.AppendFormat(b, "2006-01-02T15:04:05.000Z07:00")
	b = append(b, " level="...)
	b = append(b, levelNames[level]...)
	b = append(b, " msg="...)
	b = appendLogValue(b, msg)
	for i := 0; i < len(args); i += 2 {
		b = append(b, ' ')
		if i+1 == len(args) { // a lone value, as slog keys it
			b = append(b, "!BADKEY="...)
			b = appendLogValue(b, fmt.Sprint(args[i]))
			break
		}
		b = append(b, fmt.Sprint(args[i])...)
		b = append(b, '=')
		b = appendLogValue(b, logValueText(args[i+1]))
	}
	b = append(b, '\n')
	l.buf = b
	_, _ = l.w.Write(b)
}

func logValueText(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case error:
		return v.Error()
	case uint64:
		return strconv.FormatUint(v, 10)
	case int:
		return strconv.Itoa(v)
	}
	return fmt.Sprint(v)
}

// appendLogValue appends s, quoted when slog's text handler would quote
// it (empty, or holding a space, '=', '"' or a character not printed).
func appendLogValue(b []byte, s string) []byte {
	if s == "" {
		return append(b, `""`...)
	}
	for _, r := range s {
		if r == '=' || r == '"' || unicode.IsSpace(r) || !unicode.IsPrint(r) {
			return strconv.AppendQuote(b, s)
		}
	}
	return append(b, s...)
}
