#define _GNU_SOURCE
#include "CSandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <signal.h>
#include <string.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/shm.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

// The Landlock system calls have the same numbers on every architecture (added after the
// tables were unified), and close_range too; glibc 2.36 has no wrappers for the former.
#define BG_SYS_landlock_create_ruleset 444
#define BG_SYS_pidfd_open 434
#define BG_SYS_landlock_add_rule 445
#define BG_SYS_landlock_restrict_self 446
#define BG_SYS_close_range 436
#define BG_LANDLOCK_CREATE_RULESET_VERSION (1U << 0)
#define BG_LANDLOCK_RULE_PATH_BENEATH 1

struct bg_landlock_ruleset_attr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net;
    uint64_t scoped;
};

struct bg_landlock_path_beneath_attr {
    uint64_t allowed_access;
    int32_t parent_fd;
} __attribute__((packed));

int bg_landlock_abi(void) {
    long abi = syscall(BG_SYS_landlock_create_ruleset, NULL, 0, BG_LANDLOCK_CREATE_RULESET_VERSION);
    return abi < 0 ? -errno : (int)abi;
}

int bg_landlock_create_ruleset(uint64_t handled_fs, uint64_t handled_net, uint64_t scoped) {
    // The kernel accepts the whole structure from any ABI on as long as the fields it does
    // not know are zero, which the caller's masking guarantees.
    struct bg_landlock_ruleset_attr attr = {
        .handled_access_fs = handled_fs,
        .handled_access_net = handled_net,
        .scoped = scoped,
    };
    long fd = syscall(BG_SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
    return fd < 0 ? -errno : (int)fd;
}

int bg_open_path(const char *path) {
    return open(path, O_PATH | O_CLOEXEC);
}

int bg_landlock_allow_path(int ruleset_fd, int parent_fd, uint64_t allowed) {
    struct bg_landlock_path_beneath_attr attr = {.allowed_access = allowed, .parent_fd = parent_fd};
    return syscall(BG_SYS_landlock_add_rule, ruleset_fd, BG_LANDLOCK_RULE_PATH_BENEATH, &attr, 0) < 0 ? -errno : 0;
}

const char *bg_sandbox_step_name(int32_t step) {
    switch ((bg_sandbox_step)step) {
    case BG_STEP_FORK: return "fork";
    case BG_STEP_SETSID: return "setsid";
    case BG_STEP_SIGNALS: return "resetting signals";
    case BG_STEP_DESCRIPTORS: return "arranging descriptors";
    case BG_STEP_CGROUP: return "joining the cgroup (cgroup.procs)";
    case BG_STEP_STDIN: return "/dev/null";
    case BG_STEP_SETGROUPS: return "setgroups";
    case BG_STEP_SETRESGID: return "setresgid";
    case BG_STEP_SETRESUID: return "setresuid";
    case BG_STEP_NO_NEW_PRIVS: return "prctl(PR_SET_NO_NEW_PRIVS)";
    case BG_STEP_LANDLOCK: return "landlock_restrict_self";
    case BG_STEP_CLOSE_RANGE: return "close_range";
    case BG_STEP_CHDIR: return "chdir";
    case BG_STEP_EXECVE: return "execve";
    case BG_STEP_ERROR_PIPE: return "the error pipe";
    case BG_STEP_IPC_NAMESPACE: return "unshare(CLONE_NEWIPC)";
    case BG_STEP_PROCESS_LIMIT: return "setrlimit(RLIMIT_NPROC)";
    case BG_STEP_MEMORY_LIMIT: return "setrlimit(RLIMIT_DATA)";
    case BG_STEP_PRIVATE_PROC: return "a private /proc (a procfs of the app's own)";
    case BG_STEP_NOEXEC_DIRECTORY: return "binding the data and temporary directories noexec";
    case BG_STEP_SECCOMP: return "a seccomp filter (prctl(PR_SET_SECCOMP))";
    case BG_STEP_MEMORY_DENY_WRITE_EXECUTE: return "refusing writable-executable memory (prctl(PR_SET_MDWE))";
    case BG_STEP_HIDE_PATH: return "binding /dev/null over the session bus socket";
    case BG_STEP_USER_NAMESPACE: return "a user namespace of the app's own (unshare(CLONE_NEWUSER), uid_map)";
    }
    return "unknown step";
}

/// Reports a failed step to the parent and ends the child. Async-signal-safe.
__attribute__((noreturn)) static void fail(int pipe_fd, bg_sandbox_step step) {
    bg_sandbox_failure failure = {.step = step, .error = errno};
    ssize_t ignored = write(pipe_fd, &failure, sizeof failure);
    (void)ignored;
    _exit(127);
}

/// Moves a descriptor above the ones the child arranges (0-4), close-on-exec; -1 stays -1.
static int lift(int fd) {
    return fd < 0 ? -1 : fcntl(fd, F_DUPFD_CLOEXEC, 16);
}

/// Binds `path` onto itself without exec, setuid or device files, in the caller's mount
/// namespace. 0, or -1 with errno set.
static int bind_noexec(const char *path) {
    if (mount(path, path, NULL, MS_BIND | MS_REC, NULL) != 0) return -1;
    return mount(NULL, path, NULL, MS_REMOUNT | MS_BIND | MS_NOEXEC | MS_NOSUID | MS_NODEV, NULL);
}

/// A mount namespace of the caller's own, receiving mounts from outside but sending none
/// out, with a fresh procfs on /proc that shows only the caller's uid's processes. 0, or -1
/// with errno set. Only system calls: it runs between fork and execve.
static int private_proc(void) {
    if (syscall(SYS_unshare, CLONE_NEWNS) != 0) return -1;
    if (mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) != 0) return -1;
    return mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, "hidepid=invisible");
}

/// Writes all of `text` to the file at `path`. 0, or -1 with errno set. Only system calls.
static int write_file(const char *path, const char *text) {
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    size_t length = strlen(text);
    ssize_t written = write(fd, text, length);
    int saved = errno;
    close(fd);
    if (written == (ssize_t)length) return 0;
    errno = written < 0 ? saved : EIO;
    return -1;
}

/// A user namespace of the caller's own, its uid and gid mapped to themselves, with IPC and
/// mount namespaces owned by it (mounts from outside still propagate in, none go out). With
/// `in_new_user_namespace`, the caller was cloned into a fresh user namespace already (and a
/// PID namespace it owns). 0, or -1 with errno set. Only system calls: it runs between fork
/// and execve.
static int own_user_namespace(const char *uid_map, const char *gid_map, int in_new_user_namespace) {
    int flags = CLONE_NEWIPC | CLONE_NEWNS | (in_new_user_namespace ? 0 : CLONE_NEWUSER);
    if (syscall(SYS_unshare, flags) != 0) return -1;
    if (write_file("/proc/self/uid_map", uid_map) != 0) return -1;
    // An unprivileged gid_map needs setgroups refused in the namespace first.
    if (write_file("/proc/self/setgroups", "deny") != 0) return -1;
    if (write_file("/proc/self/gid_map", gid_map) != 0) return -1;
    return mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL);
}

/// A new process in a user namespace and a PID namespace of its own, in which it is pid 1
/// (fork's semantics otherwise: the child returns 0 on the parent's stack copy). A PID
/// namespace needs privilege over the user namespace that owns it, so both come in one clone.
static pid_t clone_into_pid_namespace(void) {
    return (pid_t)syscall(SYS_clone, SIGCHLD | CLONE_NEWUSER | CLONE_NEWPID, NULL, NULL, NULL, 0);
}

/// A procfs of the caller's PID namespace on /proc in its mount namespace: it lists the
/// namespace's processes alone. 0, or -1 with errno set.
static int mount_own_proc(void) {
    return mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
}

/// clone3's number on every architecture (it came after the tables were unified).
enum { BG_NR_CLONE3 = 435 };

/// clone3's arguments up to `cgroup` (CLONE_ARGS_SIZE_VER2), as <linux/sched.h> has them
/// since Linux 5.7; spelled out here so that header's CLONE_* macros do not meet <sched.h>'s.
struct bg_clone_args {
    uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls, set_tid, set_tid_size, cgroup;
};
#define BG_CLONE_INTO_CGROUP 0x200000000ULL

/// A new process started in the cgroup `cgroup_fd` names, with `namespaces` (CLONE_NEW*
/// flags) besides, and fork's semantics otherwise (the child returns 0 on a copy of the
/// caller's stack). -1 with errno: ENOSYS before Linux 5.3 or under a seccomp policy that
/// refuses clone3, EINVAL before 5.7, and whatever fork itself may fail with.
static pid_t clone_into_cgroup(int cgroup_fd, uint64_t namespaces) {
    struct bg_clone_args args;
    memset(&args, 0, sizeof args);
    args.flags = BG_CLONE_INTO_CGROUP | namespaces;
    args.exit_signal = SIGCHLD;
    args.cgroup = (uint64_t)cgroup_fd;
    return (pid_t)syscall(BG_NR_CLONE3, &args, sizeof args);
}

// The filter reads a 64-bit argument's low half at its offset, which is little-endian's.
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the seccomp filter reads arguments as little-endian"
#endif

#if defined(__x86_64__)
#define BG_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define BG_AUDIT_ARCH AUDIT_ARCH_AARCH64
#else
#error "the seccomp filter knows x86-64 and arm64 system call numbers only"
#endif

// Absent from glibc 2.36's headers (Linux 6.3).
#ifndef PR_SET_MDWE
#define PR_SET_MDWE 65
#define PR_GET_MDWE 66
#define PR_MDWE_REFUSE_EXEC_GAIN (1UL << 0)
#endif

#define BG_LOAD(field) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, field))
#define BG_RETURN(action) BPF_STMT(BPF_RET | BPF_K, (action))
#define BG_REFUSED(error) BG_RETURN(SECCOMP_RET_ERRNO | ((error) & SECCOMP_RET_DATA))
/// Two instructions: system call `nr` (in the accumulator) answered with `error`.
#define BG_REFUSE(nr, error) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), BG_REFUSED(error)

/// Installs the seccomp filter `spec` asks for, on the app and all it starts. Calls through
/// another ABI than the daemon's own (i386 or x32 on x86-64, arm32 on arm64) are answered
/// ENOSYS: their numbers differ, and a filter that checked only one table would be a way
/// around it. 0, or -1 with errno set. Needs no_new_privs first.
static int install_seccomp(const bg_sandbox_spawn *spec) {
    struct sock_filter filter[48];
    unsigned short length = 0;
#define BG_EMIT(...)                                                        \
    do {                                                                    \
        struct sock_filter emitted[] = {__VA_ARGS__};                       \
        for (size_t i = 0; i < sizeof emitted / sizeof emitted[0]; i++) {   \
            filter[length++] = emitted[i];                                  \
        }                                                                   \
    } while (0)
    BG_EMIT(BG_LOAD(arch), BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, BG_AUDIT_ARCH, 1, 0), BG_REFUSED(ENOSYS));
    BG_EMIT(BG_LOAD(nr));
#if defined(__x86_64__)
    BG_EMIT(BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, __X32_SYSCALL_BIT, 0, 1), BG_REFUSED(ENOSYS));
#endif
    // clone3's CLONE_INTO_CGROUP starts a child in another cgroup, opening no file Landlock
    // could refuse, and seccomp cannot read clone3's arguments. glibc falls back to clone.
    if (spec->refuse_clone3) BG_EMIT(BG_REFUSE(BG_NR_CLONE3, ENOSYS));
    if (spec->refuse_ptrace) BG_EMIT(BG_REFUSE(__NR_ptrace, EPERM));
    if (spec->refuse_dynamic_code) {
        // A memfd lives on the kernel's internal tmpfs, which neither mount flags nor Landlock
        // rule: written, then mapped executable or run by execve of /proc/self/fd/N.
        BG_EMIT(BG_REFUSE(__NR_memfd_create, ENOSYS));
        // Fills pages of an executable mapping, bypassing its protection.
        BG_EMIT(BG_REFUSE(__NR_userfaultfd, EPERM));
        // The checks of arguments come last: each replaces the system call number in the
        // accumulator, so each ends in a verdict. Arguments are read as their low 32 bits.
        // mmap of shared memory executable: another view of the same pages (a second mapping
        // by mremap, or a forked child's copy made writable) writes the code MDWE would
        // otherwise keep out, since neither view gains execute permission.
        BG_EMIT(
            BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_mmap, 0, 6), BG_LOAD(args[2]),
            BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, PROT_EXEC, 0, 3), BG_LOAD(args[3]),
            BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, MAP_SHARED, 0, 1), BG_REFUSED(EPERM),
            BG_RETURN(SECCOMP_RET_ALLOW));
        // personality(READ_IMPLIES_EXEC) makes every readable mapping executable without
        // PROT_EXEC in mmap's arguments, the shared one above included. 0xffffffff only asks
        // for the current personality.
        BG_EMIT(
            BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_personality, 0, 5), BG_LOAD(args[0]),
            BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0xffffffffU, 2, 0),
            BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, READ_IMPLIES_EXEC, 0, 1), BG_REFUSED(EPERM),
            BG_RETURN(SECCOMP_RET_ALLOW));
        // shmat(SHM_EXEC): one segment mapped twice, writable and executable.
        BG_EMIT(
            BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_shmat, 0, 3), BG_LOAD(args[2]),
            BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, SHM_EXEC, 0, 1), BG_REFUSED(EPERM));
    }
    BG_EMIT(BG_RETURN(SECCOMP_RET_ALLOW));
#undef BG_EMIT
    struct sock_fprog program = {.len = length, .filter = filter};
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program, 0, 0);
}

/// The child between fork and execve: only system calls, on data prepared by the parent.
/// `in_cgroup`: it was started in the app's cgroup already (clone_into_cgroup).
__attribute__((noreturn)) static void child(const bg_sandbox_spawn *spec, int error_fd, int in_cgroup) {
    int report = lift(error_fd);
    if (report < 0) _exit(126);

    if (setsid() < 0) fail(report, BG_STEP_SETSID);

    // Nothing the daemon ignores, handles or blocks carries over into the app.
    struct sigaction defaults;
    memset(&defaults, 0, sizeof defaults);
    defaults.sa_handler = SIG_DFL;
    for (int signal = 1; signal < _NSIG; signal++) {
        if (signal == SIGKILL || signal == SIGSTOP) continue;
        // glibc reserves 32 and 33 for itself: EINVAL there is expected.
        (void)sigaction(signal, &defaults, NULL);
    }
    sigset_t none;
    sigemptyset(&none);
    if (sigprocmask(SIG_SETMASK, &none, NULL) != 0) fail(report, BG_STEP_SIGNALS);

    // Lift every source above 0-4 first, so arranging 0-4 cannot overwrite one of them.
    int output = lift(spec->output_fd);
    int channel = lift(spec->channel_fd);
    int ruleset = lift(spec->landlock_ruleset_fd);
    if (output < 0 || (spec->channel_fd >= 0 && channel < 0) || (spec->landlock_ruleset_fd >= 0 && ruleset < 0)) {
        fail(report, BG_STEP_DESCRIPTORS);
    }

    // Join the app's cgroup before anything else runs in the child's name: from here on
    // the freezer holds every process the app starts.
    if (!in_cgroup && spec->cgroup_procs_fd >= 0 && write(spec->cgroup_procs_fd, "0", 1) != 1) {
        fail(report, BG_STEP_CGROUP);
    }

    int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (null < 0 || dup2(null, 0) < 0) fail(report, BG_STEP_STDIN);
    if (dup2(output, 1) < 0 || dup2(output, 2) < 0) fail(report, BG_STEP_DESCRIPTORS);
    if (channel >= 0 ? dup2(channel, 3) < 0 : (close(3) != 0 && errno != EBADF)) fail(report, BG_STEP_DESCRIPTORS);
    if (dup3(report, 4, O_CLOEXEC) < 0) fail(report, BG_STEP_ERROR_PIPE);
    report = 4;

    if (spec->change_identity) {
        // Raw system calls: glibc's wrappers broadcast to every thread of the process,
        // machinery that is not async-signal-safe (the child has one thread anyway).
        // SysV shared memory, semaphores and message queues, and POSIX message queues, of
        // the app's own: what it makes there dies with its last process instead of outliving
        // a force quit (a segment nobody removes stays until reboot), and no app reaches
        // another's.
        if (syscall(SYS_unshare, CLONE_NEWIPC) != 0) fail(report, BG_STEP_IPC_NAMESPACE);
        // /proc showing the app's own processes only (its uid is its own): no other
        // process's command line, environment or open files to read.
        if (spec->private_proc) {
            if (private_proc() != 0) fail(report, BG_STEP_PRIVATE_PROC);
            if (spec->noexec_first && bind_noexec(spec->noexec_first) != 0) fail(report, BG_STEP_NOEXEC_DIRECTORY);
            if (spec->noexec_second && bind_noexec(spec->noexec_second) != 0) fail(report, BG_STEP_NOEXEC_DIRECTORY);
            if (ruleset >= 0 && spec->proc_access != 0) {
                int proc = open("/proc", O_PATH | O_CLOEXEC);
                if (proc < 0 || bg_landlock_allow_path(ruleset, proc, spec->proc_access) != 0) {
                    fail(report, BG_STEP_PRIVATE_PROC);
                }
                close(proc);
            }
        }
        if (syscall(SYS_setgroups, 0, NULL) != 0) fail(report, BG_STEP_SETGROUPS);
        if (syscall(SYS_setresgid, spec->gid, spec->gid, spec->gid) != 0) fail(report, BG_STEP_SETRESGID);
        if (syscall(SYS_setresuid, spec->uid, spec->uid, spec->uid) != 0) fail(report, BG_STEP_SETRESUID);
    } else if (spec->own_user_namespace) {
        // A person's daemon has no privilege to give the app namespaces; a user namespace
        // of the app's own does, with the app still the person to the system outside it. Its
        // IPC dies with it, and its directories are mounted noexec as under a root daemon.
        // Its capabilities there end at execve (its uid is not 0 inside).
        if (own_user_namespace(spec->uid_map, spec->gid_map, spec->private_proc) != 0) {
            fail(report, BG_STEP_USER_NAMESPACE);
        }
        // Cloned into a PID namespace of its own (the app is its pid 1): a /proc of that
        // namespace shows the app's processes alone, though they share the person's uid.
        if (spec->private_proc) {
            if (mount_own_proc() != 0) fail(report, BG_STEP_PRIVATE_PROC);
            if (ruleset >= 0 && spec->proc_access != 0) {
                int proc = open("/proc", O_PATH | O_CLOEXEC);
                if (proc < 0 || bg_landlock_allow_path(ruleset, proc, spec->proc_access) != 0) {
                    fail(report, BG_STEP_PRIVATE_PROC);
                }
                close(proc);
            }
        }
        if (spec->noexec_first && bind_noexec(spec->noexec_first) != 0) fail(report, BG_STEP_NOEXEC_DIRECTORY);
        if (spec->noexec_second && bind_noexec(spec->noexec_second) != 0) fail(report, BG_STEP_NOEXEC_DIRECTORY);
        // The person's session bus admits the person's uid, which the app has: out of reach,
        // the daemon serves what apps need of the desktop (MPRIS, notifications, push).
        for (char *const *hidden = spec->hidden_paths; hidden && *hidden; hidden++) {
            if (mount("/dev/null", *hidden, NULL, MS_BIND, NULL) != 0 && errno != ENOENT && errno != ENOTDIR && errno != EACCES) {
                fail(report, BG_STEP_HIDE_PATH);
            }
        }
    }
    // Counted per real uid in each user namespace (Linux 5.14 and later): under a root daemon
    // the uid is the app's alone, and in a user namespace of the app's own the count there is
    // of the app's processes alone, not the person's. Either way a fork bomb stops at the
    // limit instead of taking the machine's process table.
    struct rlimit processes = {.rlim_cur = (rlim_t)spec->process_limit, .rlim_max = (rlim_t)spec->process_limit};
    if (spec->process_limit > 0 && setrlimit(RLIMIT_NPROC, &processes) != 0) fail(report, BG_STEP_PROCESS_LIMIT);
    // Per process, in every mode: an allocation past it fails (malloc returns NULL) instead of
    // taking the machine's memory; where the memory controller is delegated, memory.max
    // bounds the app as a whole too.
    struct rlimit memory = {.rlim_cur = (rlim_t)spec->memory_limit, .rlim_max = (rlim_t)spec->memory_limit};
    if (spec->memory_limit > 0 && setrlimit(RLIMIT_DATA, &memory) != 0) fail(report, BG_STEP_MEMORY_LIMIT);
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) fail(report, BG_STEP_NO_NEW_PRIVS);
    if (spec->refuse_dynamic_code && prctl(PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN, 0, 0, 0) != 0) {
        fail(report, BG_STEP_MEMORY_DENY_WRITE_EXECUTE);
    }
    if ((spec->refuse_clone3 || spec->refuse_ptrace || spec->refuse_dynamic_code) && install_seccomp(spec) != 0) {
        fail(report, BG_STEP_SECCOMP);
    }
    if (ruleset >= 0 && syscall(BG_SYS_landlock_restrict_self, ruleset, 0) != 0) {
        fail(report, BG_STEP_LANDLOCK);
    }
    // Everything else the daemon had open (its database, sockets, other apps' channels).
    if (syscall(BG_SYS_close_range, 5U, ~0U, 0) != 0) {
        if (errno != ENOSYS) fail(report, BG_STEP_CLOSE_RANGE);
        for (int fd = 5; fd < 65536; fd++) (void)close(fd);
    }
    if (chdir(spec->directory) != 0) fail(report, BG_STEP_CHDIR);
    execve(spec->executable, spec->argv, spec->envp);
    fail(report, BG_STEP_EXECVE);
}

pid_t bg_sandbox_spawn_process(const bg_sandbox_spawn *spec, bg_sandbox_failure *failure) {
    int pipe_fds[2];
    if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
        *failure = (bg_sandbox_failure){.step = BG_STEP_ERROR_PIPE, .error = errno};
        return -1;
    }
    // No signal handler may run in the child before it has reset them all.
    sigset_t all, saved;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &saved);
    int pid_namespace = spec->own_user_namespace && spec->private_proc && !spec->change_identity;
    // Started in its cgroup where the kernel allows it; otherwise forked, to join by writing
    // cgroup.procs (which also reports a cgroup that refuses it by name).
    pid_t pid = -1;
    if (spec->cgroup_fd >= 0) {
        pid = clone_into_cgroup(spec->cgroup_fd, pid_namespace ? (CLONE_NEWUSER | CLONE_NEWPID) : 0);
    }
    int in_cgroup = pid >= 0;
    if (pid < 0) pid = pid_namespace ? clone_into_pid_namespace() : fork();
    if (pid == 0) {
        close(pipe_fds[0]);
        child(spec, pipe_fds[1], in_cgroup);
    }
    int fork_error = errno;
    pthread_sigmask(SIG_SETMASK, &saved, NULL);
    close(pipe_fds[1]);
    if (pid < 0) {
        close(pipe_fds[0]);
        *failure = (bg_sandbox_failure){.step = BG_STEP_FORK, .error = fork_error};
        return -1;
    }
    // The write end closes on a successful execve: end of file means the app runs.
    bg_sandbox_failure report;
    ssize_t got;
    do {
        got = read(pipe_fds[0], &report, sizeof report);
    } while (got < 0 && errno == EINTR);
    close(pipe_fds[0]);
    if (got == 0) return pid;
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    if (got == (ssize_t)sizeof report) {
        *failure = report;
    } else {
        *failure = (bg_sandbox_failure){.step = BG_STEP_ERROR_PIPE, .error = got < 0 ? errno : EIO};
    }
    return -1;
}

/// A probe's setup, given the caller's uid and gid maps ("ID ID 1\n"): 0, or -1 with errno.
typedef int (*bg_probe_setup)(const char *uid_map, const char *gid_map);

/// Runs `setup` in a short-lived child, forked or (with `into_pid_namespace`) cloned into
/// user and PID namespaces of its own. Returns 0, or -errno from the child.
static int probe(int into_pid_namespace, bg_probe_setup setup) {
    // Prepared here: the child makes system calls only.
    char uid_map[32], gid_map[32];
    snprintf(uid_map, sizeof uid_map, "%u %u 1\n", (unsigned)geteuid(), (unsigned)geteuid());
    snprintf(gid_map, sizeof gid_map, "%u %u 1\n", (unsigned)getegid(), (unsigned)getegid());
    pid_t pid = into_pid_namespace ? clone_into_pid_namespace() : fork();
    if (pid < 0) return -errno;
    if (pid == 0) _exit(setup(uid_map, gid_map) == 0 ? 0 : (errno & 0xff));
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    if (!WIFEXITED(status)) return -ECHILD;
    return -WEXITSTATUS(status);
}

static int private_proc_setup(const char *uid_map, const char *gid_map) {
    (void)uid_map;
    (void)gid_map;
    return private_proc();
}

static int user_namespace_setup(const char *uid_map, const char *gid_map) {
    return own_user_namespace(uid_map, gid_map, 0);
}

static int pid_namespace_setup(const char *uid_map, const char *gid_map) {
    if (own_user_namespace(uid_map, gid_map, 1) != 0) return -1;
    return mount_own_proc();
}

int bg_probe_private_proc(void) { return probe(0, private_proc_setup); }

int bg_probe_user_namespace(void) { return probe(0, user_namespace_setup); }

int bg_probe_pid_namespace(void) { return probe(1, pid_namespace_setup); }

int bg_probe_memory_deny_write_execute(void) {
    return prctl(PR_GET_MDWE, 0, 0, 0, 0) >= 0 ? 0 : -errno;
}

int bg_become_child_subreaper(void) {
    return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0 ? 0 : -errno;
}

pid_t bg_wait_any_exited(void) {
    siginfo_t info;
    memset(&info, 0, sizeof info);
    int result;
    do {
        result = waitid(P_ALL, 0, &info, WEXITED | WNOWAIT);
    } while (result < 0 && errno == EINTR);
    return result < 0 ? -errno : info.si_pid;
}

int bg_pidfd_open(pid_t pid) {
    long fd = syscall(BG_SYS_pidfd_open, pid, 0);
    return fd < 0 ? -errno : (int)fd;
}
