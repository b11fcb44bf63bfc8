/*
 * Opens a file with one of the 64-bit open calls that libc no longer uses for fopen: open, creat,
 * openat2. Usage: legacy-open open|creat|openat2 PATH
 */
#include <fcntl.h>
#include <linux/openat2.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc < 3) return 2;
  long fd = -1;
  if (strcmp(argv[1], "open") == 0) fd = syscall(SYS_open, argv[2], O_RDONLY);
  else if (strcmp(argv[1], "creat") == 0) fd = syscall(SYS_creat, argv[2], 0644);
  else if (strcmp(argv[1], "openat2") == 0) {
    struct open_how how;
    memset(&how, 0, sizeof how);
    how.flags = O_RDONLY;
    fd = syscall(SYS_openat2, AT_FDCWD, argv[2], &how, sizeof how);
  }
  return fd < 0 ? 1 : 0;
}
