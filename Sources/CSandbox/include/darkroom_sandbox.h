#ifndef DARKROOM_SANDBOX_H
#define DARKROOM_SANDBOX_H

// What a drawing child does to itself before it reads a byte of a
// stranger's file: the libraries it runs (poppler, librsvg, FFmpeg, x265)
// cannot be stopped from inside, so the kernel bounds what they can reach.

/// Installs a seccomp filter under which `socket` fails with EACCES for
/// every address family, for this process and all it starts, for good: no
/// library in it can open a network connection, bind a port or reach a
/// resolver. `no_new_privs` is set first, as the kernel asks. Returns 0,
/// or -1 with errno where the kernel refuses the filter.
int darkroom_refuse_sockets(void);

/// Asks the kernel to send SIGKILL to this process when the thread that
/// started it ends: a drawing child never outlives the server or command
/// that waits for it, however that one ends. Returns 0, or -1 with errno.
int darkroom_die_with_parent(void);

/// Tries to open an IPv4 UDP socket: 0 when one was opened (and closed),
/// else the errno. For the check that the filter holds.
int darkroom_try_socket(void);

#include <sys/types.h>

/// Starts `path` with `argv` and `envp`, its standard input and output
/// pipes to this process (`*to_child`, `*from_child`, both close-on-exec
/// here) and its standard error /dev/null, and nothing else: every other
/// descriptor of this process (listening and client sockets, other
/// children's pipes) is closed in the child before it runs. Returns the
/// child's pid, or -1 with errno.
pid_t darkroom_spawn_child(const char *path, char *const argv[], char *const envp[], int *to_child, int *from_child);

/// Catches SIGINT with a handler that only notes it (async-signal-safe),
/// in place at once: unlike a dispatch source, which libdispatch registers
/// later on its own thread, no interrupt that comes after this returns is
/// lost. 0 on success.
int darkroom_catch_interrupt(void);

/// Whether SIGINT came since darkroom_catch_interrupt.
int darkroom_was_interrupted(void);

#endif
