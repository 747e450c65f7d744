#ifndef CSANDBOX_H
#define CSANDBOX_H

// Starting an app in its sandbox: fork, then in the child only async-signal-safe system
// calls on data the parent prepared, then execve. See docs/SANDBOX.md.
//
// Landlock's structures and constants are defined here under BG_ names because the C
// library headers (Debian 12: linux/landlock.h of ABI 2) are older than the kernels the
// daemon runs on (ABI 7).

#include <stdint.h>
#include <sys/types.h>

// MARK: Landlock (include/uapi/linux/landlock.h)

static const uint64_t BG_LANDLOCK_ACCESS_FS_EXECUTE = 1ULL << 0;
static const uint64_t BG_LANDLOCK_ACCESS_FS_WRITE_FILE = 1ULL << 1;
static const uint64_t BG_LANDLOCK_ACCESS_FS_READ_FILE = 1ULL << 2;
static const uint64_t BG_LANDLOCK_ACCESS_FS_READ_DIR = 1ULL << 3;
static const uint64_t BG_LANDLOCK_ACCESS_FS_REMOVE_DIR = 1ULL << 4;
static const uint64_t BG_LANDLOCK_ACCESS_FS_REMOVE_FILE = 1ULL << 5;
static const uint64_t BG_LANDLOCK_ACCESS_FS_MAKE_CHAR = 1ULL << 6;
static const uint64_t BG_LANDLOCK_ACCESS_FS_MAKE_DIR = 1ULL << 7;
static const uint64_t BG_LANDLOCK_ACCESS_FS_MAKE_REG = 1ULL << 8;
static const uint64_t BG_LANDLOCK_ACCESS_FS_MAKE_SOCK = 1ULL << 9;
static const uint64_t BG_LANDLOCK_ACCESS_FS_MAKE_FIFO = 1ULL << 10;
static const uint64_t BG_LANDLOCK_ACCESS_FS_MAKE_BLOCK = 1ULL << 11;
static const uint64_t BG_LANDLOCK_ACCESS_FS_MAKE_SYM = 1ULL << 12;
/// ABI 2.
static const uint64_t BG_LANDLOCK_ACCESS_FS_REFER = 1ULL << 13;
/// ABI 3.
static const uint64_t BG_LANDLOCK_ACCESS_FS_TRUNCATE = 1ULL << 14;
/// ABI 5.
static const uint64_t BG_LANDLOCK_ACCESS_FS_IOCTL_DEV = 1ULL << 15;
/// ABI 4 (left unhandled by Backgrounder: apps may use the network).
static const uint64_t BG_LANDLOCK_ACCESS_NET_BIND_TCP = 1ULL << 0;
static const uint64_t BG_LANDLOCK_ACCESS_NET_CONNECT_TCP = 1ULL << 1;
/// ABI 6.
static const uint64_t BG_LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET = 1ULL << 0;
static const uint64_t BG_LANDLOCK_SCOPE_SIGNAL = 1ULL << 1;

/// The highest Landlock ABI the running kernel offers (1 or more), or -errno
/// (-ENOSYS: not built in; -EOPNOTSUPP: built in but disabled at boot).
int bg_landlock_abi(void);

/// Creates a ruleset handling these rights; returns a close-on-exec descriptor or -errno.
/// Rights the kernel does not know must already be masked out by the caller.
int bg_landlock_create_ruleset(uint64_t handled_fs, uint64_t handled_net, uint64_t scoped);

/// Opens a file or directory for naming it in a rule only (O_PATH | O_CLOEXEC, which
/// Swift's Glibc module does not export); returns a descriptor or -1 with errno set.
int bg_open_path(const char *path);

/// Allows `allowed` beneath the file or directory open (O_PATH is enough) as `parent_fd`;
/// returns 0 or -errno.
int bg_landlock_allow_path(int ruleset_fd, int parent_fd, uint64_t allowed);

/// A pidfd for a process (pidfd_open, Linux 5.3): readable once the process has exited,
/// whether or not it is the caller's child. Returns a close-on-exec descriptor or -errno.
int bg_pidfd_open(pid_t pid);

/// Whether a child can have a private /proc (a mount namespace, then procfs with
/// hidepid=invisible): tried in a short-lived child. Returns 0 or -errno.
int bg_probe_private_proc(void);

/// Whether an unprivileged child can have a user namespace of its own with its uid mapped to
/// itself, and in it IPC and mount namespaces (what own_user_namespace asks): tried in a
/// short-lived child. Returns 0 or -errno.
int bg_probe_user_namespace(void);

/// Whether an unprivileged child can be cloned into user and PID namespaces of its own and
/// mount a procfs of that PID namespace (what a person's daemon's private /proc asks; a
/// container that masks parts of /proc refuses it): tried in a short-lived child. Returns 0
/// or -errno.
int bg_probe_pid_namespace(void);

/// Whether this kernel can refuse memory that gains execute permission (PR_SET_MDWE, Linux
/// 6.3 and later): asked with PR_GET_MDWE. Returns 0 or -errno.
int bg_probe_memory_deny_write_execute(void);

/// Makes the calling process a child subreaper (PR_SET_CHILD_SUBREAPER): a descendant whose
/// parent exits is reparented to it instead of to init. Returns 0 or -errno.
int bg_become_child_subreaper(void);

/// Waits until some child has exited and returns its pid without reaping it
/// (waitid(P_ALL, WEXITED | WNOWAIT)); -errno on failure (-ECHILD: no children).
pid_t bg_wait_any_exited(void);

// MARK: Spawning

/// Everything the child needs, prepared by the parent: the child allocates nothing.
typedef struct bg_sandbox_spawn {
    /// The program to execve.
    const char *executable;
    /// NULL-terminated argument and environment vectors.
    char *const *argv;
    char *const *envp;
    /// The working directory (the bundle).
    const char *directory;
    /// Receives standard output and standard error.
    int output_fd;
    /// Becomes descriptor 3 with close-on-exec cleared, or -1 for none.
    int channel_fd;
    /// An open cgroup.procs to write "0" to (joins the app's cgroup), or -1 for none.
    int cgroup_procs_fd;
    /// The app's cgroup directory (O_RDONLY | O_DIRECTORY), or -1: the child is then started
    /// in it by clone3's CLONE_INTO_CGROUP, which spares the write to cgroup.procs (a
    /// migration, which waits for the kernel's cgroup lock: milliseconds per launch). Where
    /// the kernel or a seccomp policy refuses clone3, the child is forked and writes
    /// cgroup.procs as before.
    int cgroup_fd;
    /// A Landlock ruleset to restrict the child with, or -1 for none.
    int landlock_ruleset_fd;
    /// Whether to drop to uid/gid (with no supplementary groups), in a private IPC namespace
    /// made first (it needs the root daemon's CAP_SYS_ADMIN).
    int change_identity;
    uid_t uid;
    gid_t gid;
    /// With change_identity or own_user_namespace, the most processes the app may have
    /// (RLIMIT_NPROC, counted per uid in each user namespace: either way the app's alone), or 0
    /// for no limit.
    int process_limit;
    /// The most data memory (heap and private writable mappings) each process of the app
    /// may map (RLIMIT_DATA, in every mode), in bytes, or 0 for no limit.
    unsigned long long memory_limit;
    /// With change_identity: a mount namespace of the app's own (mounts from outside still
    /// propagate in) with a /proc that shows only processes of the app's uid
    /// (hidepid=invisible). With own_user_namespace: the app is cloned into user and PID
    /// namespaces of its own (it is pid 1 there, and its processes die with it) and /proc is
    /// that namespace's. With a Landlock ruleset, read access to that /proc is added.
    int private_proc;
    /// The Landlock rights to grant on the private /proc.
    uint64_t proc_access;
    /// With private_proc: directories bound onto themselves noexec, nosuid, nodev in the app's
    /// mount namespace (its data and temporary directories), or NULL. The kernel then refuses
    /// to map their files executable, so ld.so cannot run or load native code written there.
    const char *noexec_first;
    const char *noexec_second;
    /// Without change_identity (a person's daemon): a user namespace of the app's own in which
    /// its uid and gid map to themselves (it stays the person to everything outside), made to
    /// give it, with no privilege, the private IPC namespace and the noexec directories above
    /// in a mount namespace of its own. The maps are the lines to write ("UID UID 1\n").
    int own_user_namespace;
    const char *uid_map;
    const char *gid_map;
    /// With own_user_namespace: files /dev/null is bound over in the app's mount namespace,
    /// NULL-terminated (the person's session bus sockets: connecting there is then refused).
    /// One that does not exist is skipped.
    char *const *hidden_paths;
    /// A seccomp filter that answers clone3 with ENOSYS, for the app and everything it starts:
    /// clone3's CLONE_INTO_CGROUP would start a child in any cgroup whose cgroup.procs the
    /// app's uid may write (a person's delegated subtree), out of the freezer's reach, and no
    /// open of a file is involved for Landlock to refuse. The C library falls back to clone.
    int refuse_clone3;
    /// No code the app did not ship as a file: memory is never both writable and executable
    /// nor made executable later (PR_SET_MDWE, inherited through fork and execve), and seccomp
    /// refuses the ways around that: memfd_create (ENOSYS, so libraries fall back to files,
    /// which Landlock and noexec mounts rule), userfaultfd, and shmat with SHM_EXEC (EPERM).
    /// Off for an app that declares a JIT (`BGAllowsJIT`).
    int refuse_dynamic_code;
    /// ptrace refused by seccomp (EPERM): a tracer writes code into a child's executable
    /// pages, whatever their protection. Off under a sanitizer (LeakSanitizer traces).
    int refuse_ptrace;
} bg_sandbox_spawn;

/// The child's setup steps, reported when one fails.
typedef enum bg_sandbox_step {
    BG_STEP_FORK = 1,
    BG_STEP_SETSID,
    BG_STEP_SIGNALS,
    BG_STEP_DESCRIPTORS,
    BG_STEP_CGROUP,
    BG_STEP_STDIN,
    BG_STEP_SETGROUPS,
    BG_STEP_SETRESGID,
    BG_STEP_SETRESUID,
    BG_STEP_NO_NEW_PRIVS,
    BG_STEP_LANDLOCK,
    BG_STEP_CLOSE_RANGE,
    BG_STEP_CHDIR,
    BG_STEP_EXECVE,
    BG_STEP_ERROR_PIPE,
    BG_STEP_IPC_NAMESPACE,
    BG_STEP_PROCESS_LIMIT,
    BG_STEP_MEMORY_LIMIT,
    BG_STEP_PRIVATE_PROC,
    BG_STEP_NOEXEC_DIRECTORY,
    BG_STEP_USER_NAMESPACE,
    BG_STEP_SECCOMP,
    BG_STEP_HIDE_PATH,
    BG_STEP_MEMORY_DENY_WRITE_EXECUTE,
} bg_sandbox_step;

/// Which step failed and its errno.
typedef struct bg_sandbox_failure {
    int32_t step;
    int32_t error;
} bg_sandbox_failure;

/// Forks and sets up the child as `spec` says, then execs it.
/// Returns the child's pid (it leads its own session) once execve succeeded, or -1 with
/// `failure` set (the child, if any, is already reaped).
pid_t bg_sandbox_spawn_process(const bg_sandbox_spawn *spec, bg_sandbox_failure *failure);

/// The system call or file a step is named after in error messages.
const char *bg_sandbox_step_name(int32_t step);

#endif
