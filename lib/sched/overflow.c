/* SPDX-License-Identifier: MIT */
/* overflow.c - stack overflow reporting; see overflow.h. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/fail.h"
#include "base/internal.h"
#include "overflow.h"
#include "mem/stack.h"
#include "worker.h"

#define ALTSTACK_SIZE ((size_t)64 << 10)

static struct sigaction old_segv;
static bool installed;

/* Per thread, touched only on the thread's own stack (never a process's). */
static __thread void *altstack_mem;
static __thread stack_t old_altstack;

void act__overflow_report(act_pid pid, uint64_t size)
{
	char s[ACT_PID_STRLEN];

	act_pid_format(pid, s, sizeof(s)); /* async-signal-safe */
	act__fatal_write_line(2, "actors: stack overflow in process ", s,
			      " (stack size ", size, " bytes)");
	_exit(ACT_OVERFLOW_STATUS);
}

/*
 * Not an overflow: do what would have happened without us, and stay
 * installed. A handler that was there before is called as the kernel
 * would have called it. With none (or SIG_IGN, which the kernel does not
 * honour for a fault), the default action: for a fault, the default put
 * back and a return, so that the instruction faults again and the process
 * dies of it as it would have (with a core); for a SIGSEGV that was sent
 * (kill, raise, sigqueue: si_code <= 0), the default put back and the
 * signal sent again, since nothing would repeat it; SIG_IGN ignores a
 * sent one.
 */
static void chain(int sig, siginfo_t *si, void *uc)
{
	bool sent = si->si_code <= 0;
	struct sigaction dfl;

	if (old_segv.sa_flags & SA_SIGINFO) {
		old_segv.sa_sigaction(sig, si, uc);
		return;
	}
	if (old_segv.sa_handler != SIG_DFL && old_segv.sa_handler != SIG_IGN) {
		old_segv.sa_handler(sig);
		return;
	}
	if (sent && old_segv.sa_handler == SIG_IGN)
		return;
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	sigaction(sig, &dfl, NULL);
	if (sent)
		raise(sig);
}

static void on_segv(int sig, siginfo_t *si, void *uc)
{
	struct act__worker *w = act__tls_worker_self();
	struct act__proc *p = w ? w->current : NULL;
	uintptr_t a = (uintptr_t)si->si_addr;

	/* a fault in the guard below the running process's stack (a sent
	 * SIGSEGV names no address of its own: not one) */
	if (si->si_code > 0 && p && p->stack_lo) {
		uintptr_t lo = (uintptr_t)p->stack_lo;

		if (a < lo && a >= lo - ACT_GUARD_SIZE)
			act__overflow_report(p->pid, p->stack_size);
	}
	chain(sig, si, uc);
}

int act__overflow_init(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_segv;
	/* SA_NODEFER: a fault inside a chained handler reaches us again */
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSEGV, &sa, &old_segv))
		return -errno;
	installed = true;
	return 0;
}

void act__overflow_fini(void)
{
	if (installed)
		sigaction(SIGSEGV, &old_segv, NULL);
	installed = false;
}

int act__overflow_thread_init(void)
{
	stack_t ss;

	altstack_mem = ACT_FAIL(ACT_FAIL_MMAP) ?
			       MAP_FAILED :
			       mmap(NULL, ALTSTACK_SIZE, PROT_READ | PROT_WRITE,
				    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (altstack_mem == MAP_FAILED) {
		altstack_mem = NULL;
		return -ENOMEM;
	}
	ss.ss_sp = altstack_mem;
	ss.ss_size = ALTSTACK_SIZE;
	ss.ss_flags = 0;
	if (sigaltstack(&ss, &old_altstack)) {
		munmap(altstack_mem, ALTSTACK_SIZE);
		altstack_mem = NULL;
		return -errno;
	}
	return 0;
}

void act__overflow_thread_fini(void)
{
	if (!altstack_mem)
		return;
	sigaltstack(&old_altstack, NULL);
	munmap(altstack_mem, ALTSTACK_SIZE);
	altstack_mem = NULL;
}
