#ifndef ORCRT_FAULTREPORT_H
#define ORCRT_FAULTREPORT_H

// orcrt_faultreport_install puts the report handler in front of the
// handlers in place for SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP and
// SIGABRT, its line starting with prefix (the first call's). 0 on
// success, else the signal whose sigaction failed (errno set).
int orcrt_faultreport_install(const char *prefix);

#endif
