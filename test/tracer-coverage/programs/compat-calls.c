/*
 * Makes system calls through the i386 table (`int $0x80`) from a 64-bit program, which the 64-bit
 * syscall tracepoints never see. Built with `cc -static -no-pie`, so its static buffers sit below
 * 4 GiB, where 32-bit calls can address them.
 *   compat-calls open PATH       open (5) and read (3) the file, write (4) it to stdout
 *   compat-calls connect PORT    socketcall (102): socket, then connect to 127.0.0.1:PORT
 */
#include <stdlib.h>
#include <string.h>

static char path[4096];
static char buffer[4096];
static unsigned int words[3];
static unsigned char addr[16];

static long call32(long nr, long a, long b, long c) {
  long ret;
  __asm__ volatile("int $0x80" : "=a"(ret) : "a"(nr), "b"(a), "c"(b), "d"(c) : "memory");
  return ret;
}

static int open_and_copy(const char *name) {
  if (strlen(name) >= sizeof path) return 2;
  strcpy(path, name);
  long fd = call32(5, (long)path, 0, 0);
  if (fd < 0) return 1;
  long n;
  while ((n = call32(3, fd, (long)buffer, sizeof buffer)) > 0) call32(4, 1, (long)buffer, n);
  call32(6, fd, 0, 0);
  return 0;
}

static int connect_loopback(int port) {
  words[0] = 2; /* AF_INET */
  words[1] = 1; /* SOCK_STREAM */
  words[2] = 0;
  long fd = call32(102, 1 /* SYS_SOCKET */, (long)words, 0);
  if (fd < 0) return 1;
  addr[0] = 2; /* sin_family, little-endian */
  addr[2] = (unsigned char)(port >> 8);
  addr[3] = (unsigned char)port;
  addr[4] = 127;
  addr[7] = 1;
  words[0] = (unsigned int)fd;
  words[1] = (unsigned int)(unsigned long)addr;
  words[2] = sizeof addr;
  call32(102, 3 /* SYS_CONNECT */, (long)words, 0);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 3) return 2;
  if (strcmp(argv[1], "open") == 0) return open_and_copy(argv[2]);
  if (strcmp(argv[1], "connect") == 0) return connect_loopback(atoi(argv[2]));
  return 2;
}
