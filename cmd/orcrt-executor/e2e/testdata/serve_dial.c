/* orcrt-executor serve's peer tests: connect to a Unix socket
 * (`unix PATH`) or a TCP port (`tcp HOST PORT`), wait up to 5 s for the
 * first bytes and print what came: "setup N" (N bytes: the executor's
 * Setup), "closed" (end of file: refused), or "error: <reason>". */
#include <arpa/inet.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
int main(int argc, char **argv) {
  int fd;
  if (argc == 3 && strcmp(argv[1], "unix") == 0) {
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    strncpy(a.sun_path, argv[2], sizeof a.sun_path - 1);
    fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) { perror("error: connect"); return 0; }
  } else if (argc == 4 && strcmp(argv[1], "tcp") == 0) {
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(atoi(argv[3]))};
    inet_pton(AF_INET, argv[2], &a.sin_addr);
    fd = socket(AF_INET, SOCK_STREAM, 0);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) { perror("error: connect"); return 0; }
  } else {
    fprintf(stderr, "usage: serve_dial unix PATH | tcp HOST PORT\n");
    return 2;
  }
  struct pollfd p = {.fd = fd, .events = POLLIN};
  if (poll(&p, 1, 5000) != 1) { printf("error: no answer in 5 s\n"); return 0; }
  char buf[64];
  ssize_t n = read(fd, buf, sizeof buf);
  if (n > 0) printf("setup %zd\n", n);
  else if (n == 0) printf("closed\n");
  else perror("error: read");
  return 0;
}
