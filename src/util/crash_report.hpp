// crash_report.hpp: a last word from a process that crashes. After
// install_crash_report(), a fatal signal (SIGSEGV, SIGBUS, SIGFPE, SIGILL,
// SIGABRT) writes to stderr one line naming the signal, the faulting
// address and the thread, then the thread's backtrace (glibc's
// backtrace_symbols_fd: each frame as module(+offset), which addr2line -e
// MODULE resolves), and ends the process by the same signal, so the exit
// status and any core file are the crash's own. A crash that no test
// reproduces at will (one run in many) then says where it happened in the
// log of the run that saw it.
//
// The handler uses write(2) and backtrace(3) only. backtrace loads
// libgcc's unwinder on its first call, which allocates: install calls it
// once, so that a handler running on a corrupted heap does not. The main
// thread gets an alternate signal stack, so that a stack overflow there is
// reported too (other threads' overflows end without the report). StarPU,
// started later, installs its own handlers for some of these signals
// (SIGSEGV among them, unless STARPU_CATCH_SIGNALS=0) and calls the one it
// found, this one, from its own, as a plain handler: the report then has
// no address, and the backtrace shows StarPU's handler above the crash.
#pragma once

#include <execinfo.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>

namespace starzk {

namespace crash_detail {

inline char alt_stack[1 << 16];

inline void put(const char* s) {
  const size_t n = std::strlen(s);
  for (size_t done = 0; done < n;) {
    const ssize_t k = ::write(2, s + done, n - done);
    if (k <= 0) return;
    done += size_t(k);
  }
}

// Unsigned decimal or hex into `buf` (at least 24 bytes), no allocation.
inline const char* number(uint64_t v, bool hex, char* buf) {
  char* p = buf + 23;
  *p = '\0';
  const unsigned base = hex ? 16 : 10;
  do {
    *--p = "0123456789abcdef"[v % base];
    v /= base;
  } while (v != 0);
  if (hex) {
    *--p = 'x';
    *--p = '0';
  }
  return p;
}

inline const char* signal_name(int sig) {
  switch (sig) {
    case SIGSEGV:
      return "SIGSEGV";
    case SIGBUS:
      return "SIGBUS";
    case SIGFPE:
      return "SIGFPE";
    case SIGILL:
      return "SIGILL";
    case SIGABRT:
      return "SIGABRT";
    default:
      return "a fatal signal";
  }
}

inline void on_fatal(int sig, siginfo_t* info, void*) {
  // The default action first: a runtime that took the signal over and
  // calls this as a plain handler (StarPU restores the handler it found
  // with signal(2) and raises again) gets no reset on entry, and the raise
  // below would come back here.
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  (void)::sigaction(sig, &dfl, nullptr);
  char buf[24];
  put("starzk: crashed with ");
  put(signal_name(sig));
  // Called as a plain handler, info is not this signal's: no address then.
  if (sig != SIGABRT && info != nullptr && info->si_signo == sig) {
    put(" at address ");
    put(number(uint64_t(reinterpret_cast<uintptr_t>(info->si_addr)), true, buf));
  }
  put(" in thread ");
  put(number(uint64_t(::syscall(SYS_gettid)), false, buf));
  put("; backtrace (module(+offset); addr2line -e MODULE OFFSET names the line):\n");
  void* frames[64];
  const int n = ::backtrace(frames, 64);
  ::backtrace_symbols_fd(frames, n, 2);
  // The handler is the default again and this signal is blocked while it
  // runs: raised again, it ends the process as the crash would have once
  // the handler returns.
  ::raise(sig);
}

}  // namespace crash_detail

inline void install_crash_report() {
  void* warm[2];
  (void)::backtrace(warm, 2);  // loads the unwinder now, not in the handler
  stack_t ss{};
  ss.ss_sp = crash_detail::alt_stack;
  ss.ss_size = sizeof crash_detail::alt_stack;
  (void)::sigaltstack(&ss, nullptr);
  struct sigaction sa {};
  sa.sa_sigaction = crash_detail::on_fatal;
  sa.sa_flags = SA_SIGINFO | SA_RESETHAND | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) (void)::sigaction(sig, &sa, nullptr);
}

}  // namespace starzk
