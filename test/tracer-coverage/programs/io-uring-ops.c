/*
 * Runs operations on an io_uring instead of their system calls: the kernel does them on the ring's
 * behalf. Raw syscalls, no liburing.
 *   io-uring-ops read PATH      IORING_OP_OPENAT, then IORING_OP_READ; copies up to 4 KiB to stdout
 *   io-uring-ops connect PORT   IORING_OP_CONNECT to 127.0.0.1:PORT
 *   io-uring-ops write PATH TEXT IORING_OP_OPENAT (create, mode 0755), then IORING_OP_WRITE of TEXT
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static struct io_uring_params params;
static unsigned *sq_tail, *sq_array, *cq_head, *cq_tail;
static struct io_uring_sqe *sqes;
static struct io_uring_cqe *cqes;
static int ring;

/* Submits one SQE and waits for its completion; returns the CQE's result. */
static int run(const struct io_uring_sqe *sqe) {
  unsigned tail = *sq_tail;
  sqes[0] = *sqe;
  sq_array[tail & (params.sq_entries - 1)] = 0;
  __atomic_store_n(sq_tail, tail + 1, __ATOMIC_RELEASE);
  if (syscall(__NR_io_uring_enter, ring, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0) < 0) return -1;
  unsigned head = *cq_head;
  if (head == __atomic_load_n(cq_tail, __ATOMIC_ACQUIRE)) return -1;
  int res = cqes[head & (params.cq_entries - 1)].res;
  __atomic_store_n(cq_head, head + 1, __ATOMIC_RELEASE);
  return res;
}

int main(int argc, char **argv) {
  if (argc < 3) return 2;
  ring = (int)syscall(__NR_io_uring_setup, 4, &params);
  if (ring < 0) return 3;
  size_t sq_size = params.sq_off.array + params.sq_entries * sizeof(unsigned);
  size_t cq_size = params.cq_off.cqes + params.cq_entries * sizeof(struct io_uring_cqe);
  char *sq = mmap(0, sq_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_SQ_RING);
  char *cq = mmap(0, cq_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_CQ_RING);
  sqes = mmap(0, params.sq_entries * sizeof(struct io_uring_sqe), PROT_READ | PROT_WRITE,
              MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_SQES);
  if (sq == MAP_FAILED || cq == MAP_FAILED || sqes == MAP_FAILED) return 4;
  sq_tail = (unsigned *)(sq + params.sq_off.tail);
  sq_array = (unsigned *)(sq + params.sq_off.array);
  cq_head = (unsigned *)(cq + params.cq_off.head);
  cq_tail = (unsigned *)(cq + params.cq_off.tail);
  cqes = (struct io_uring_cqe *)(cq + params.cq_off.cqes);

  struct io_uring_sqe sqe;
  memset(&sqe, 0, sizeof sqe);
  if (strcmp(argv[1], "connect") == 0) {
    static struct sockaddr_in to;
    to.sin_family = AF_INET;
    to.sin_port = htons((unsigned short)atoi(argv[2]));
    to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    sqe.opcode = IORING_OP_CONNECT;
    sqe.fd = socket(AF_INET, SOCK_STREAM, 0);
    sqe.addr = (unsigned long)&to;
    sqe.off = sizeof to;
    run(&sqe);
    return 0;
  }
  int writing = strcmp(argv[1], "write") == 0;
  if (writing && argc < 4) return 2;
  sqe.opcode = IORING_OP_OPENAT;
  sqe.fd = AT_FDCWD;
  sqe.addr = (unsigned long)argv[2];
  sqe.open_flags = writing ? O_WRONLY | O_CREAT | O_TRUNC : O_RDONLY;
  sqe.len = 0755; /* the mode of a file the open creates */
  int fd = run(&sqe);
  if (fd < 0) return 1;
  if (writing) {
    /* `write PATH TEXT`: the file made and written by the ring alone (no open or write call). */
    memset(&sqe, 0, sizeof sqe);
    sqe.opcode = IORING_OP_WRITE;
    sqe.fd = fd;
    sqe.addr = (unsigned long)argv[3];
    sqe.len = strlen(argv[3]);
    return run(&sqe) == (int)strlen(argv[3]) ? 0 : 1;
  }

  static char buffer[4096];
  memset(&sqe, 0, sizeof sqe);
  sqe.opcode = IORING_OP_READ;
  sqe.fd = fd;
  sqe.addr = (unsigned long)buffer;
  sqe.len = sizeof buffer;
  int n = run(&sqe);
  if (n < 0) return 1;
  return write(1, buffer, n) == n ? 0 : 1;
}
