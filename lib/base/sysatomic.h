/* SPDX-License-Identifier: MIT */
/*
 * sysatomic.h - in a systematic build (./configure --enable-systematic),
 * every C11 atomic operation of the library is a switch point of the
 * seeded scheduler (systematic.h): the compiler includes this file before
 * each of the library's sources (-include, Makefile.am), and it replaces
 * <stdatomic.h>'s operations with ones that call act__systematic_point() first.
 * The operation itself is the compiler's (GCC's __atomic built-ins,
 * clang's __c11_atomic ones), with the same order argument. Not included
 * in any other build.
 */
#ifndef ACT_SYSATOMIC_H
#define ACT_SYSATOMIC_H
/* the library's assembly (arch/.../ctx.S) is included for too */
#ifndef __ASSEMBLER__
/* as <stdatomic.h>'s: what the compilers say of an operation's
 * arguments (clang: a mask's constant narrowed to the word) not said of
 * these macros either */
#pragma GCC system_header

#include <stdatomic.h>
#include <stdbool.h>

void act__systematic_point(void);
extern bool act__systematic_on;

/* the point, when a seeded run is on: one load of a word otherwise */
#define act__systematic_point_if()                                \
	(__atomic_load_n(&act__systematic_on, __ATOMIC_RELAXED) ? \
		 act__systematic_point() :                        \
		 (void)0)

#undef atomic_load
#undef atomic_load_explicit
#undef atomic_store
#undef atomic_store_explicit
#undef atomic_exchange
#undef atomic_exchange_explicit
#undef atomic_compare_exchange_strong
#undef atomic_compare_exchange_strong_explicit
#undef atomic_compare_exchange_weak
#undef atomic_compare_exchange_weak_explicit
#undef atomic_fetch_add
#undef atomic_fetch_add_explicit
#undef atomic_fetch_sub
#undef atomic_fetch_sub_explicit
#undef atomic_fetch_or
#undef atomic_fetch_or_explicit
#undef atomic_fetch_and
#undef atomic_fetch_and_explicit
#undef atomic_fetch_xor
#undef atomic_fetch_xor_explicit
#undef atomic_thread_fence

#if defined(__clang__)

#define atomic_load_explicit(P, MO) \
	(act__systematic_point_if(), __c11_atomic_load(P, MO))
#define atomic_store_explicit(P, V, MO) \
	(act__systematic_point_if(), __c11_atomic_store(P, V, MO))
#define atomic_exchange_explicit(P, V, MO) \
	(act__systematic_point_if(), __c11_atomic_exchange(P, V, MO))
#define atomic_compare_exchange_strong_explicit(P, E, D, S, F) \
	(act__systematic_point_if(),                           \
	 __c11_atomic_compare_exchange_strong(P, E, D, S, F))
#define atomic_compare_exchange_weak_explicit(P, E, D, S, F) \
	(act__systematic_point_if(),                         \
	 __c11_atomic_compare_exchange_weak(P, E, D, S, F))
#define atomic_fetch_add_explicit(P, V, MO) \
	(act__systematic_point_if(), __c11_atomic_fetch_add(P, V, MO))
#define atomic_fetch_sub_explicit(P, V, MO) \
	(act__systematic_point_if(), __c11_atomic_fetch_sub(P, V, MO))
#define atomic_fetch_or_explicit(P, V, MO) \
	(act__systematic_point_if(), __c11_atomic_fetch_or(P, V, MO))
#define atomic_fetch_and_explicit(P, V, MO) \
	(act__systematic_point_if(), __c11_atomic_fetch_and(P, V, MO))
#define atomic_fetch_xor_explicit(P, V, MO) \
	(act__systematic_point_if(), __c11_atomic_fetch_xor(P, V, MO))
#define atomic_thread_fence(MO) \
	(act__systematic_point_if(), __c11_atomic_thread_fence(MO))

#elif defined(__GNUC__)

/* __typeof__((void)0, *p): the type without its _Atomic, as GCC's own
 * <stdatomic.h> takes it */
#define atomic_load_explicit(P, MO)                         \
	__extension__({                                     \
		__auto_type act__sa_p = (P);                \
		__typeof__((void)0, *act__sa_p) act__sa_v;  \
		act__systematic_point_if();                 \
		__atomic_load(act__sa_p, &act__sa_v, (MO)); \
		act__sa_v;                                  \
	})
#define atomic_store_explicit(P, V, MO)                          \
	__extension__({                                          \
		__auto_type act__sa_p = (P);                     \
		__typeof__((void)0, *act__sa_p) act__sa_v = (V); \
		act__systematic_point_if();                      \
		__atomic_store(act__sa_p, &act__sa_v, (MO));     \
	})
#define atomic_exchange_explicit(P, V, MO)                                  \
	__extension__({                                                     \
		__auto_type act__sa_p = (P);                                \
		__typeof__((void)0, *act__sa_p) act__sa_v = (V), act__sa_r; \
		act__systematic_point_if();                                 \
		__atomic_exchange(act__sa_p, &act__sa_v, &act__sa_r, (MO)); \
		act__sa_r;                                                  \
	})
#define act__sa_cas(P, E, D, WEAK, S, F)                                    \
	__extension__({                                                     \
		__auto_type act__sa_p = (P);                                \
		__typeof__((void)0, *act__sa_p) act__sa_d = (D);            \
		act__systematic_point_if();                                 \
		__atomic_compare_exchange(act__sa_p, (E), &act__sa_d, WEAK, \
					  (S), (F));                        \
	})
#define atomic_compare_exchange_strong_explicit(P, E, D, S, F) \
	act__sa_cas(P, E, D, 0, S, F)
#define atomic_compare_exchange_weak_explicit(P, E, D, S, F) \
	act__sa_cas(P, E, D, 1, S, F)
#define atomic_fetch_add_explicit(P, V, MO) \
	(act__systematic_point_if(), __atomic_fetch_add((P), (V), (MO)))
#define atomic_fetch_sub_explicit(P, V, MO) \
	(act__systematic_point_if(), __atomic_fetch_sub((P), (V), (MO)))
#define atomic_fetch_or_explicit(P, V, MO) \
	(act__systematic_point_if(), __atomic_fetch_or((P), (V), (MO)))
#define atomic_fetch_and_explicit(P, V, MO) \
	(act__systematic_point_if(), __atomic_fetch_and((P), (V), (MO)))
#define atomic_fetch_xor_explicit(P, V, MO) \
	(act__systematic_point_if(), __atomic_fetch_xor((P), (V), (MO)))
#define atomic_thread_fence(MO) \
	(act__systematic_point_if(), __atomic_thread_fence(MO))

#else
#error "--enable-systematic needs GCC or clang"
#endif

#define atomic_load(P) atomic_load_explicit(P, memory_order_seq_cst)
#define atomic_store(P, V) atomic_store_explicit(P, V, memory_order_seq_cst)
#define atomic_exchange(P, V) \
	atomic_exchange_explicit(P, V, memory_order_seq_cst)
#define atomic_compare_exchange_strong(P, E, D)                                \
	atomic_compare_exchange_strong_explicit(P, E, D, memory_order_seq_cst, \
						memory_order_seq_cst)
#define atomic_compare_exchange_weak(P, E, D)                                \
	atomic_compare_exchange_weak_explicit(P, E, D, memory_order_seq_cst, \
					      memory_order_seq_cst)
#define atomic_fetch_add(P, V) \
	atomic_fetch_add_explicit(P, V, memory_order_seq_cst)
#define atomic_fetch_sub(P, V) \
	atomic_fetch_sub_explicit(P, V, memory_order_seq_cst)
#define atomic_fetch_or(P, V) \
	atomic_fetch_or_explicit(P, V, memory_order_seq_cst)
#define atomic_fetch_and(P, V) \
	atomic_fetch_and_explicit(P, V, memory_order_seq_cst)
#define atomic_fetch_xor(P, V) \
	atomic_fetch_xor_explicit(P, V, memory_order_seq_cst)

#endif /* __ASSEMBLER__ */
#endif /* ACT_SYSATOMIC_H */
