/* SPDX-License-Identifier: MIT */
/*
 * actors.h - the one public header of libactors.
 *
 * Erlang-style processes for Linux: lightweight, stackful, share-nothing,
 * talking only by copied messages. One runtime per OS process, started by
 * act_main(); every other call is made from inside a process it runs unless
 * its comment says "any thread".
 *
 * Errors come back as negative errno values (like liburing); nothing here
 * sets errno. Each function has a man page (man 3 act_<name>).
 */
#ifndef ACTORS_H
#define ACTORS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(ACT_BUILDING_LIBRARY)
#define ACT_API __attribute__((visibility("default")))
#else
#define ACT_API
#endif

#define ACT_VERSION_MAJOR 0
#define ACT_VERSION_MINOR 1

/* A process identifier: slot index and generation. 0 means "no process". */
typedef struct {
	uint64_t id;
} act_pid;

#define ACT_PID_NONE ((act_pid){ 0 })

static inline bool act_pid_eq(act_pid a, act_pid b)
{
	return a.id == b.id;
}

/* Receive timeouts: 0 polls, any negative value waits without limit. */
#define ACT_FOREVER ((int64_t)-1)

/* Tags from ACT_TAG_RESERVED up are the runtime's own. */
#define ACT_TAG_RESERVED 0xffffff00u
#define ACT_TAG_EXIT 0xfffffffeu
#define ACT_TAG_DOWN 0xfffffffdu

/* Exit reasons. Any other value is a user reason (abnormal). */
#define ACT_EXIT_NORMAL ((intptr_t)0)
#define ACT_EXIT_KILL ((intptr_t)-1)     /* cannot be trapped */
#define ACT_EXIT_KILLED ((intptr_t)-2)   /* what a KILL becomes */
#define ACT_EXIT_NOPROC ((intptr_t)-3)   /* linked or monitored a dead pid */
#define ACT_EXIT_SHUTDOWN ((intptr_t)-4)
#define ACT_EXIT_MAILBOX ((intptr_t)-5)  /* its mailbox passed its limit */

/*
 * The payload of an ACT_TAG_EXIT or ACT_TAG_DOWN message (msg->len is
 * sizeof(struct act_exit_info), msg->from is `who`).
 *   EXIT: a linked process exited, or act_kill() was called on a process
 *         that traps exits; who is the process that exited, or the caller
 *         of act_kill (ACT_PID_NONE from outside a process); ref is 0.
 *   DOWN: a monitored process exited (or was not there: ACT_EXIT_NOPROC);
 *         ref is the reference act_monitor() returned.
 */
struct act_exit_info {
	act_pid who;
	intptr_t reason;
	uint64_t ref;
};

/* act_spawn_opts.flags: set up atomically with the spawn. */
#define ACT_SPAWN_LINK (1u << 0)    /* link the child and the caller */
#define ACT_SPAWN_MONITOR (1u << 1) /* the caller monitors the child */
/* The child keeps its own floating-point control state (rounding mode,
 * flush-to-zero, exception masks: what fesetround(3) and fesetenv(3)
 * set), starting from the defaults, across every switch; without it a
 * process runs with its worker thread's, which a process changing it
 * changes for those that run after it there. */
#define ACT_SPAWN_FPENV (1u << 2)

/* act_spawn_opts.mailbox_limit / act_config.mailbox_limit: no limit. */
#define ACT_MAILBOX_UNLIMITED UINT32_MAX

/* Longest name act_register() takes, in bytes, without the NUL. */
#define ACT_NAME_MAX 255

/* Largest payload act_send() copies; larger ones get -EMSGSIZE. */
#define ACT_MSG_MAX ((size_t)64 << 20)

/* Stack guard strategies (act_config.stack_guard). */
enum act_guard {
	ACT_GUARD_AUTO = 0,  /* best the kernel offers, in the order below */
	ACT_GUARD_MADVISE,   /* MADV_GUARD_INSTALL, batched (Linux 6.13) */
	ACT_GUARD_MPROTECT,  /* PROT_NONE page, within a VMA budget */
	ACT_GUARD_CANARY,    /* canary words checked at every switch */
};

/* How workers are bound to CPUs (act_config.bind, ACTORS_BIND). */
enum act_bind {
	ACT_BIND_DEFAULT = 0, /* ACTORS_BIND, else ACT_BIND_CORE */
	ACT_BIND_NONE,        /* not bound */
	ACT_BIND_CORE,        /* one worker per core */
	ACT_BIND_PU,          /* one worker per hardware thread */
	ACT_BIND_SPREAD,      /* across packages and NUMA nodes first */
	ACT_BIND_COMPACT,     /* fill a package, threads too, first */
	ACT_BIND_NUMA,        /* each worker bound to a NUMA node's CPUs */
};

/* act_config.reactor_cpu: the reactor thread's CPU. */
#define ACT_REACTOR_DEFAULT 0       /* ACTORS_REACTOR_CPU, else auto */
#define ACT_REACTOR_AUTO (-1)       /* the CPU no worker was given */
#define ACT_REACTOR_NONE (-2)       /* not bound */
#define ACT_REACTOR_CPU(n) ((n) + 1) /* OS CPU n */

/*
 * Runtime configuration. act_config_init() sets every field to "unset"
 * (zero); act_main() then resolves each one: a field set here wins over
 * the ACTORS_* environment variable, which wins over the default.
 */
struct act_config {
	int schedulers;     /* workers; 0: ACTORS_SCHEDULERS or default */
	size_t stack_size;  /* bytes; 0: ACTORS_STACK_SIZE or 64 KiB */
	uint32_t max_procs; /* process table size; 0: 4,194,304 */
	int reductions;     /* runtime calls before a forced yield; 0: 2000 */
	int stack_guard;    /* enum act_guard */
	int spin_us;        /* idle search before a worker sleeps, in us;
			     * 0: ACTORS_SPIN_US or 20; negative: none */
	uint32_t ring_entries; /* the reactor's io_uring SQ size, 1 to
				* 32768; 0: ACTORS_RING_ENTRIES or 256 */
	uint32_t timer_us;  /* timer resolution (the wheel's tick), 10 to
			     * 100,000 us; 0: ACTORS_TIMER_US or 250 */
	uint32_t mailbox_limit; /* unreceived messages a process may hold
				 * before it is killed (ACT_EXIT_MAILBOX);
				 * 0: ACTORS_MAILBOX_LIMIT or no limit;
				 * ACT_MAILBOX_UNLIMITED: no limit */
	int bind;           /* enum act_bind; 0: ACTORS_BIND or core */
	int reactor_cpu;    /* ACT_REACTOR_*; 0: ACTORS_REACTOR_CPU or
			     * auto */
	uint32_t reserved[1];
	const char *cpus;   /* CPUs the runtime may use, a list such as
			     * "0-7,16-23"; NULL: ACTORS_CPUS or all the
			     * process may use */
};

/* Options for act_spawn_opt(); zeroed fields take the runtime's values. */
struct act_spawn_opts {
	size_t stack_size;      /* 0: the runtime's stack size */
	uint32_t flags;         /* ACT_SPAWN_LINK, ACT_SPAWN_MONITOR,
				 * ACT_SPAWN_FPENV */
	uint32_t mailbox_limit; /* 0: act_config.mailbox_limit;
				 * ACT_MAILBOX_UNLIMITED: none */
	uint64_t *monitor_ref;  /* ACT_SPAWN_MONITOR: the reference goes
				 * here (may be NULL) */
	uint32_t reserved[4];
};

/* A received message. Owned by the receiver until act_msg_free(). */
struct act_msg {
	uint32_t tag;  /* the sender's tag, or an ACT_TAG_* */
	uint32_t rsvd;
	act_pid from;  /* the sender, or ACT_PID_NONE from outside a process */
	size_t len;    /* payload bytes */
	void *data;    /* payload, 16-byte aligned; NULL when len is 0 */
};

/* Runtime start and stop. Any thread not already in a runtime. */
ACT_API void act_config_init(struct act_config *cfg);
ACT_API int act_main(const struct act_config *cfg, void (*fn)(void *),
		     void *arg);

/* Processes. Inside a process. */
ACT_API act_pid act_spawn(void (*fn)(void *), void *arg);
ACT_API act_pid act_spawn_opt(void (*fn)(void *), void *arg,
			      const struct act_spawn_opts *opts);
ACT_API act_pid act_self(void);
ACT_API void act_yield(void);
ACT_API void act_exit(intptr_t reason) __attribute__((noreturn));
/* Any thread: send pid an exit signal (Erlang's exit/2). ACT_EXIT_KILL
 * ends it with ACT_EXIT_KILLED; otherwise a process that traps exits gets
 * an EXIT message, ACT_EXIT_NORMAL leaves one that does not alone, and
 * any other reason ends it with that reason. It ends at its next blocking
 * call or yield; an I/O operation it waits on is cancelled first. 0, or
 * -ESRCH. */
ACT_API int act_kill(act_pid pid, intptr_t reason);

/* Links, monitors, exit handlers. Inside a process. */
ACT_API int act_link(act_pid pid);
ACT_API int act_unlink(act_pid pid);
ACT_API uint64_t act_monitor(act_pid pid);   /* a reference, 0 on error */
ACT_API int act_demonitor(uint64_t ref);
ACT_API bool act_trap_exit(bool on);          /* the previous setting */
ACT_API int act_on_exit(void (*fn)(void *arg), void *arg);

/* Names. Any thread. */
ACT_API int act_register(const char *name, act_pid pid);
ACT_API int act_unregister(const char *name);
ACT_API act_pid act_whereis(const char *name);

/* Messages. act_send: any thread; the others: inside a process. */
ACT_API int act_send(act_pid to, uint32_t tag, const void *data, size_t len);
ACT_API struct act_msg *act_receive(int64_t timeout_ns);
ACT_API struct act_msg *act_receive_match(
	bool (*match)(const struct act_msg *msg, void *ctx), void *ctx,
	int64_t timeout_ns);
ACT_API void act_msg_free(struct act_msg *msg);

/* Timers. act_sleep: inside a process; the others: any thread. */
typedef uint64_t act_timer; /* names a timer; never 0 */
ACT_API int act_sleep(int64_t ns);
ACT_API int act_send_after(int64_t ns, act_pid to, uint32_t tag,
			   const void *data, size_t len, act_timer *ref);
ACT_API int act_send_interval(int64_t ns, act_pid to, uint32_t tag,
			      const void *data, size_t len, act_timer *ref);
ACT_API int act_timer_cancel(act_timer ref);

/*
 * I/O on the reactor's io_uring ring. Inside a process: the caller waits
 * (other processes run) until the operation completes. Each returns what
 * its system call would (a count, a descriptor, poll revents, 0) or
 * -errno, and -ENOSYS when the runtime has no io_uring, -EPERM outside a
 * process. read/write take an offset, or -1 for the file position. The
 * _timeout forms give up after timeout_ns (negative: never) and return
 * -ETIMEDOUT; the buffer is the caller's again when any of them returns.
 */
ACT_API ssize_t act_io_read(int fd, void *buf, size_t n, int64_t off);
ACT_API ssize_t act_io_write(int fd, const void *buf, size_t n, int64_t off);
ACT_API ssize_t act_io_recv(int fd, void *buf, size_t n, int flags);
ACT_API ssize_t act_io_send(int fd, const void *buf, size_t n, int flags);
ACT_API int act_io_accept(int fd, struct sockaddr *addr, socklen_t *addrlen,
			  int flags);
ACT_API int act_io_connect(int fd, const struct sockaddr *addr,
			   socklen_t addrlen);
ACT_API int act_io_close(int fd);
ACT_API int act_io_poll(int fd, short events);
ACT_API ssize_t act_io_read_timeout(int fd, void *buf, size_t n, int64_t off,
				    int64_t timeout_ns);
ACT_API ssize_t act_io_write_timeout(int fd, const void *buf, size_t n,
				     int64_t off, int64_t timeout_ns);
ACT_API ssize_t act_io_recv_timeout(int fd, void *buf, size_t n, int flags,
				    int64_t timeout_ns);
ACT_API ssize_t act_io_send_timeout(int fd, const void *buf, size_t n,
				    int flags, int64_t timeout_ns);
ACT_API int act_io_accept_timeout(int fd, struct sockaddr *addr,
				  socklen_t *addrlen, int flags,
				  int64_t timeout_ns);
ACT_API int act_io_connect_timeout(int fd, const struct sockaddr *addr,
				   socklen_t addrlen, int64_t timeout_ns);
ACT_API int act_io_close_timeout(int fd, int64_t timeout_ns);
ACT_API int act_io_poll_timeout(int fd, short events, int64_t timeout_ns);
/*
 * Registered files: act_io_* calls on a registered fd skip the kernel's
 * descriptor lookup. Close it with act_io_close (which unregisters it
 * first); close(2) leaves the ring holding the file. 0 or -errno.
 */
ACT_API int act_io_register(int fd);
ACT_API int act_io_unregister(int fd);

/* Where am I. Any thread (act_worker: -1 off a worker). */
ACT_API int act_worker(void);
ACT_API int act_workers(void);

/* Runtime-wide figures (act_stats). */
struct act_stats {
	uint32_t workers;        /* workers running */
	uint32_t rsvd;
	uint64_t procs_alive;    /* processes alive now */
	uint64_t procs_peak;     /* most process slots ever in use */
	uint64_t timeouts_fired; /* receive timeouts the reactor fired */
	uint64_t io_ops;         /* act_io_* operations completed */
	uint64_t io_cancels;     /* of them, cancelled (timeout, kill, stop) */
	uint64_t io_inflight;    /* operations in the kernel now */
	uint64_t reactor_loops;  /* turns of the reactor's loop */
	uint64_t reactor_wakes;  /* workers the reactor woke (at most one
				  * FUTEX_WAKE per worker per loop) */
	uint64_t reserved[4];
};

/* One worker's counters since the runtime started (act_stats). */
struct act_worker_stats {
	uint64_t runs;         /* turns given to processes */
	uint64_t spawns;       /* processes spawned from this worker */
	uint64_t placed;       /* spawned processes it queued on others */
	uint64_t steals;       /* steal operations that took something */
	uint64_t steal_fails;  /* steal attempts that found nothing */
	uint64_t stolen;       /* processes taken by its steals */
	uint64_t remote_wakes; /* wakes it queued on other workers */
	uint64_t dup_enqueues; /* duplicate enqueues refused (I1) */
	uint64_t parks;        /* processes that blocked on it */
	uint64_t sleeps;       /* times it slept, idle */
	uint64_t futex_wakes;  /* FUTEX_WAKEs it made to wake a worker */
	uint64_t mutes;        /* senders muted on a receiver's backlog */
	int32_t cpu;           /* the CPU the plan binds it to; -1: not
				* bound to one (ACT_BIND_NONE, _NUMA) */
	int32_t node;          /* its NUMA node; -1: not bound */
	uint64_t far_steals;   /* steals from a worker on another NUMA
				* node (bound workers only) */
	uint64_t reserved[2];
};

/* Any thread while a runtime runs. Returns the number of workers. */
ACT_API int act_stats(struct act_stats *stats,
		      struct act_worker_stats *workers, int nworkers);

#ifdef __cplusplus
}
#endif

#endif /* ACTORS_H */
