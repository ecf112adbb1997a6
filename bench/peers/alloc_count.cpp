// An LD_PRELOAD shim that counts a process's heap allocations, for the
// IMPALA-5528 reproduction (bench/impala-5528-run): how many
// allocations a program makes per RPC, under whichever allocator it runs with.
//
//   LD_PRELOAD="libexsim_alloc_count.so [libtcmalloc.so.4]" EXSIM_ALLOC_COUNT_FILE=counts.jsonl program
//
// Each process appends one JSON line to the file when it exits (or when it
// calls exsim_alloc_count_report(), for a process that is ended by a signal):
//   {"pid": P, "ppid": Q, "program": "exsim", "allocations": A, "frees": F, "bytes": B}
// A forked child starts again from zero, so parent and child each count their
// own. Listed before another allocator in LD_PRELOAD, the shim passes every
// call on to it (dlsym RTLD_NEXT), so the counts are that allocator's calls.
//
// operator new and delete are counted here and passed to the next malloc and
// free, not to the next operator new: otherwise libstdc++'s operator new would
// call malloc and count twice. (tcmalloc's and jemalloc's operator new are the
// same allocator as their malloc, so the memory comes from the same place.)
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

extern "C" char* program_invocation_short_name;

namespace {

using MallocFn = void* (*)(std::size_t);
using FreeFn = void (*)(void*);
using CallocFn = void* (*)(std::size_t, std::size_t);
using ReallocFn = void* (*)(void*, std::size_t);
using MemalignFn = int (*)(void**, std::size_t, std::size_t);
using AlignedAllocFn = void* (*)(std::size_t, std::size_t);

MallocFn next_malloc;
FreeFn next_free;
CallocFn next_calloc;
ReallocFn next_realloc;
MemalignFn next_posix_memalign;
AlignedAllocFn next_aligned_alloc;
AlignedAllocFn next_memalign;

std::atomic<std::uint64_t> allocations{0};
std::atomic<std::uint64_t> frees{0};
std::atomic<std::uint64_t> bytes{0};
std::atomic<bool> reported{false};

// dlsym may allocate (calloc) while the next allocator is being looked up:
// those few requests come from here, and are never freed.
alignas(64) char bootstrap[16384];
std::atomic<std::size_t> bootstrap_used{0};
thread_local bool resolving = false;

bool from_bootstrap(const void* p) {
  return p >= static_cast<const void*>(bootstrap) && p < static_cast<const void*>(bootstrap + sizeof bootstrap);
}

void* bootstrap_alloc(std::size_t n) {
  const std::size_t size = (n + 15) & ~std::size_t{15};
  const std::size_t at = bootstrap_used.fetch_add(size);
  if (at + size > sizeof bootstrap) std::abort();
  return bootstrap + at;  // static storage: already zero, as calloc needs
}

void resolve() {
  if (next_malloc) return;
  resolving = true;
  next_malloc = reinterpret_cast<MallocFn>(dlsym(RTLD_NEXT, "malloc"));
  next_free = reinterpret_cast<FreeFn>(dlsym(RTLD_NEXT, "free"));
  next_calloc = reinterpret_cast<CallocFn>(dlsym(RTLD_NEXT, "calloc"));
  next_realloc = reinterpret_cast<ReallocFn>(dlsym(RTLD_NEXT, "realloc"));
  next_posix_memalign = reinterpret_cast<MemalignFn>(dlsym(RTLD_NEXT, "posix_memalign"));
  next_aligned_alloc = reinterpret_cast<AlignedAllocFn>(dlsym(RTLD_NEXT, "aligned_alloc"));
  next_memalign = reinterpret_cast<AlignedAllocFn>(dlsym(RTLD_NEXT, "memalign"));
  resolving = false;
  if (!next_malloc || !next_free || !next_calloc || !next_realloc || !next_posix_memalign) std::abort();
}

void count(std::size_t n) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  bytes.fetch_add(n, std::memory_order_relaxed);
}

void reset_in_child() {
  allocations = 0;
  frees = 0;
  bytes = 0;
  reported = false;
}

__attribute__((constructor)) void start() {
  resolve();
  pthread_atfork(nullptr, nullptr, reset_in_child);
}

void* allocate(std::size_t n) {
  if (!next_malloc) {
    if (resolving) return bootstrap_alloc(n);
    resolve();
  }
  count(n);
  return next_malloc(n);
}

void release(void* p) {
  if (!p || from_bootstrap(p)) return;
  frees.fetch_add(1, std::memory_order_relaxed);
  next_free(p);
}

void* allocate_aligned(std::size_t alignment, std::size_t n) {
  if (!next_malloc) resolve();
  count(n);
  void* p = nullptr;
  return next_posix_memalign(&p, alignment < sizeof(void*) ? sizeof(void*) : alignment, n) == 0 ? p : nullptr;
}

void* new_or_throw(std::size_t n) {
  for (;;) {
    if (void* p = allocate(n ? n : 1)) return p;
    std::new_handler handler = std::get_new_handler();
    if (!handler) throw std::bad_alloc();
    handler();
  }
}

void* new_aligned_or_throw(std::size_t n, std::align_val_t alignment) {
  for (;;) {
    if (void* p = allocate_aligned(static_cast<std::size_t>(alignment), n ? n : 1)) return p;
    std::new_handler handler = std::get_new_handler();
    if (!handler) throw std::bad_alloc();
    handler();
  }
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) void exsim_alloc_count_report() {
  const char* path = std::getenv("EXSIM_ALLOC_COUNT_FILE");
  if (!path || reported.exchange(true)) return;
  char line[256];
  const int n = std::snprintf(line, sizeof line,
                              "{\"pid\": %d, \"ppid\": %d, \"program\": \"%s\", \"allocations\": %llu, "
                              "\"frees\": %llu, \"bytes\": %llu}\n",
                              static_cast<int>(getpid()), static_cast<int>(getppid()), program_invocation_short_name,
                              static_cast<unsigned long long>(allocations.load()),
                              static_cast<unsigned long long>(frees.load()),
                              static_cast<unsigned long long>(bytes.load()));
  const int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return;
  // One write with O_APPEND: lines of processes exiting together never interleave.
  if (write(fd, line, static_cast<std::size_t>(n)) != n) errno = EIO;
  close(fd);
}

void* malloc(std::size_t n) { return allocate(n); }
void free(void* p) { release(p); }

void* calloc(std::size_t count_of, std::size_t size) {
  if (!next_malloc) {
    if (resolving) return bootstrap_alloc(count_of * size);
    resolve();
  }
  count(count_of * size);
  return next_calloc(count_of, size);
}

void* realloc(void* p, std::size_t n) {
  if (from_bootstrap(p)) {
    void* moved = allocate(n);
    const std::size_t left = static_cast<std::size_t>(bootstrap + sizeof bootstrap - static_cast<char*>(p));
    if (moved) std::memcpy(moved, p, n < left ? n : left);  // the old block's size is unknown: at most to the arena's end
    return moved;
  }
  if (!next_malloc) resolve();
  count(n);
  if (p) frees.fetch_add(1, std::memory_order_relaxed);
  return next_realloc(p, n);
}

int posix_memalign(void** out, std::size_t alignment, std::size_t n) {
  if (!next_malloc) resolve();
  count(n);
  return next_posix_memalign(out, alignment, n);
}

void* aligned_alloc(std::size_t alignment, std::size_t n) { return allocate_aligned(alignment, n); }
void* memalign(std::size_t alignment, std::size_t n) { return allocate_aligned(alignment, n); }

}  // extern "C"

void* operator new(std::size_t n) { return new_or_throw(n); }
void* operator new[](std::size_t n) { return new_or_throw(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return allocate(n ? n : 1); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return allocate(n ? n : 1); }
void* operator new(std::size_t n, std::align_val_t a) { return new_aligned_or_throw(n, a); }
void* operator new[](std::size_t n, std::align_val_t a) { return new_aligned_or_throw(n, a); }
void operator delete(void* p) noexcept { release(p); }
void operator delete[](void* p) noexcept { release(p); }
void operator delete(void* p, std::size_t) noexcept { release(p); }
void operator delete[](void* p, std::size_t) noexcept { release(p); }
void operator delete(void* p, std::align_val_t) noexcept { release(p); }
void operator delete[](void* p, std::align_val_t) noexcept { release(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { release(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { release(p); }

// At exit, for a process that exits (not one ended by a signal).
__attribute__((destructor)) static void finish() { exsim_alloc_count_report(); }
