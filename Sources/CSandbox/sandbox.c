#define _GNU_SOURCE
#include <stdatomic.h>
#include "darkroom_sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <signal.h>
#include <string.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define DARKROOM_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define DARKROOM_AUDIT_ARCH AUDIT_ARCH_AARCH64
#else
#error "the child sandbox knows x86_64 and aarch64"
#endif

int darkroom_refuse_sockets(void) {
    struct sock_filter filter[] = {
        // Another architecture's calling convention (a 32-bit call on a
        // 64-bit kernel) would number calls otherwise: ended outright.
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, DARKROOM_AUDIT_ARCH, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
#if defined(__x86_64__)
        // The x32 ABI's calls carry this bit: ended outright too.
        BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
#endif
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_socket, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EACCES & SECCOMP_RET_DATA)),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog program = {
        .len = (unsigned short)(sizeof filter / sizeof filter[0]),
        .filter = filter,
    };
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
    if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) != 0) return -1;
    return 0;
}

int darkroom_die_with_parent(void) {
    return prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
}

int darkroom_try_socket(void) {
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    if (fd < 0) return errno;
    close(fd);
    return 0;
}

pid_t darkroom_spawn_child(const char *path, char *const argv[], char *const envp[], int *to_child, int *from_child) {
    int in[2], out[2];
    if (pipe2(in, O_CLOEXEC) != 0) return -1;
    if (pipe2(out, O_CLOEXEC) != 0) {
        int saved = errno;
        close(in[0]); close(in[1]);
        errno = saved;
        return -1;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in[0], 0);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    // Everything past standard error, whatever its close-on-exec flag.
    posix_spawn_file_actions_addclosefrom_np(&actions, 3);
    pid_t pid = -1;
    int status = posix_spawn(&pid, path, &actions, NULL, argv, envp);
    posix_spawn_file_actions_destroy(&actions);
    close(in[0]);
    close(out[1]);
    if (status != 0) {
        close(in[1]); close(out[0]);
        errno = status;
        return -1;
    }
    *to_child = in[1];
    *from_child = out[0];
    return pid;
}

/* Written by the handler and read by another thread (the command's
   watcher): an atomic, which is async-signal-safe when lock-free, where a
   volatile sig_atomic_t is only defined for the interrupted thread itself
   (the thread sanitizer reported the race). */
static atomic_int darkroom_interrupted = 0;

static void darkroom_note_interrupt(int signo) {
    (void)signo;
    int saved = errno;
    atomic_store_explicit(&darkroom_interrupted, 1, memory_order_relaxed);
    errno = saved;
}

int darkroom_catch_interrupt(void) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = darkroom_note_interrupt;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    return sigaction(SIGINT, &action, NULL);
}

int darkroom_was_interrupted(void) {
    return atomic_load_explicit(&darkroom_interrupted, memory_order_relaxed) != 0;
}
