/* LD_PRELOAD shim for llvm-jitlink 22 in TCP mode.
 *
 * llvm-jitlink 22.1.8 ends a TCP session by close()ing its socket while its
 * own reader thread is blocked in read() on it; on Linux that neither wakes
 * the reader nor sends FIN, so controller and executor both wait forever
 * (protocol.md §8). Newer LLVM calls shutdown() first. This shim does the
 * same for stream sockets, so TCP sessions end as they do with newer LLVM.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sys/socket.h>
#include <sys/stat.h>

int close(int fd) {
  static int (*real_close)(int);
  if (!real_close)
    real_close = (int (*)(int))dlsym(RTLD_NEXT, "close");
  struct stat st;
  int type = 0;
  socklen_t len = sizeof type;
  if (fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode) &&
      getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) == 0 && type == SOCK_STREAM)
    shutdown(fd, SHUT_RDWR);
  return real_close(fd);
}
