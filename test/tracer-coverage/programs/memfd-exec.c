/*
 * Copies a program into an anonymous memory file (memfd_create) and runs it from there with
 * fexecve, which is execveat(fd, "", argv, envp, AT_EMPTY_PATH): the program never has a path on
 * disk. Usage: memfd-exec PROGRAM [ARGS...]
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

extern char **environ;

int main(int argc, char **argv) {
  if (argc < 2) return 2;
  int in = open(argv[1], O_RDONLY);
  int fd = memfd_create("payload", MFD_CLOEXEC);
  if (in < 0 || fd < 0) return 3;
  char buffer[65536];
  ssize_t n;
  while ((n = read(in, buffer, sizeof buffer)) > 0)
    if (write(fd, buffer, n) != n) return 4;
  close(in);
  fexecve(fd, argv + 1, environ);
  return 1;
}
