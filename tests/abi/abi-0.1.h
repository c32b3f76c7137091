/* SPDX-License-Identifier: MIT */
/*
 * abi-0.1.h - what a program built against the ACTORS_0.1 layouts saw
 * of <actors.h>: act_config, act_spawn_opts and act_process_info as they
 * were when the ABI policy began (doc/design/abi.md), frozen, and the
 * few calls tests/abi/old_program.c makes. Never edit the structs: they
 * stand for binaries already built. The .symver lines make this
 * program's references what an old binary's are, ACTORS_0.1, as the
 * linker would have recorded them against the 0.1 library.
 */
#ifndef ABI_0_1_H
#define ABI_0_1_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
	uint64_t id;
} act_pid;

#define ACT_FOREVER ((int64_t)-1)
#define ACT_TAG_DOWN 0xfffffffdu
#define ACT_SPAWN_MONITOR (1u << 1)
#define ACT_NAME_MAX 255
#define ACT_PROC_WAITING 3

struct act_config {
	int schedulers;
	size_t stack_size;
	uint32_t max_procs;
	int reductions;
	int stack_guard;
	int spin_us;
	uint32_t ring_entries;
	uint32_t timer_us;
	uint32_t mailbox_limit;
	int bind;
	int reactor_cpu;
	uint32_t reserved[1];
	const char *cpus;
	const char *trace;
	size_t trace_buffer;
};

struct act_spawn_opts {
	size_t stack_size;
	uint32_t flags;
	uint32_t mailbox_limit;
	uint64_t *monitor_ref;
	uint32_t reserved[4];
};

struct act_msg {
	uint32_t tag;
	uint32_t rsvd;
	act_pid from;
	size_t len;
	void *data;
};

struct act_process_info {
	act_pid pid;
	int state;
	int worker;
	uint32_t flags;
	uint32_t mailbox_limit;
	uint64_t mailbox_len;
	uint64_t reductions;
	uint64_t run_ns;
	void (*fn)(void *);
	uint32_t links;
	uint32_t monitors;
	uint32_t monitored_by;
	bool trap_exit;
	int wait;
	int64_t wait_deadline;
	int wait_io_op;
	int wait_fd;
	act_pid wait_pid;
	char name[ACT_NAME_MAX + 1];
	uint64_t reserved[6];
};

void act_config_init(struct act_config *cfg);
int act_main(const struct act_config *cfg, void (*fn)(void *), void *arg);
act_pid act_spawn_opt(void (*fn)(void *), void *arg,
		      const struct act_spawn_opts *opts);
int act_process_info(act_pid pid, struct act_process_info *info);
act_pid act_self(void);
int act_workers(void);
int act_register(const char *name, act_pid pid);
int act_send(act_pid to, uint32_t tag, const void *data, size_t len);
struct act_msg *act_receive(int64_t timeout_ns);
void act_msg_free(struct act_msg *msg);
int act_sleep(int64_t ns);

__asm__(".symver act_config_init, act_config_init@ACTORS_0.1");
__asm__(".symver act_main, act_main@ACTORS_0.1");
__asm__(".symver act_spawn_opt, act_spawn_opt@ACTORS_0.1");
__asm__(".symver act_process_info, act_process_info@ACTORS_0.1");

#endif /* ABI_0_1_H */
