#ifndef ORCRT_FATALSIG_H
#define ORCRT_FATALSIG_H

// orcrt_fatalsig_take installs the fatal handler for sig (after the Go
// runtime started, for signals Go does not forward). 0 on success.
int orcrt_fatalsig_take(int sig);
// orcrt_fatalsig_default restores sig's default action. 0 on success.
int orcrt_fatalsig_default(int sig);
// orcrt_fatalsig_die restores sig's default action, unblocks it and
// raises it: the process dies by sig.
void orcrt_fatalsig_die(int sig);
// orcrt_fatalsig_exit calls libc exit(code) with the fatal handler made
// silent: a crash in an atexit handler kills the process by its signal
// without a diagnostic, as in a C program.
void orcrt_fatalsig_exit(int code);
// orcrt_fatalsig_constructor_ran reports whether the constructor
// installed the early handlers.
int orcrt_fatalsig_constructor_ran(void);

#endif
