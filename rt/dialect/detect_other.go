//go:build !linux

package dialect

// ReleaseOfProcess identifies nothing off Linux: there is no /proc.
func ReleaseOfProcess(int) (int, string) { return 0, "" }

// scanExecutable finds nothing off Linux (the image is not mapped).
func scanExecutable(string) (int, bool) { return 0, false }
