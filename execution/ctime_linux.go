package execution

import (
	"os"
	"strconv"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// ctimeStat is what lstatCtime says of a path.
type ctimeStat struct {
	dev, ino uint64
	dir      bool
	ctime    int64 // ns
	// kept says the file system keeps ctimes itself (ctimeKept).
	kept bool
	// mountRoot says the file is the root of a mount (/proc, /sys): it
	// cannot be renamed or removed while mounted, whatever its ctime.
	mountRoot bool
}

// lstatCtime is lstat of p (statx, with the mount's unique id where the
// kernel has one, for ctimeKept).
func lstatCtime(p string) (ctimeStat, error) {
	return statxCtime(unix.AT_FDCWD, p, unix.AT_SYMLINK_NOFOLLOW)
}

// statCtime is lstatCtime of what p names (its symlinks followed).
func statCtime(p string) (ctimeStat, error) {
	return statxCtime(unix.AT_FDCWD, p, 0)
}

// statxCtime is statx of (dir, p) with flags, as a ctimeStat.
func statxCtime(dir int, p string, flags int) (ctimeStat, error) {
	var st unix.Statx_t
	err := unix.Statx(dir, p, flags|unix.AT_STATX_SYNC_AS_STAT,
		unix.STATX_TYPE|unix.STATX_INO|unix.STATX_CTIME|unix.STATX_MNT_ID_UNIQUE, &st)
	if err != nil {
		return ctimeStat{}, &os.PathError{Op: "statx", Path: p, Err: err}
	}
	kp := p
	if p == "" {
		kp = "/proc/thread-self/fd/" + strconv.Itoa(dir)
	}
	return ctimeStat{dev: unix.Mkdev(st.Dev_major, st.Dev_minor), ino: st.Ino, dir: st.Mode&unix.S_IFMT == unix.S_IFDIR,
		ctime: time.Unix(st.Ctime.Sec, int64(st.Ctime.Nsec)).UnixNano(), kept: ctimeKept(kp, &st),
		mountRoot: st.Attributes_mask&st.Attributes&unix.STATX_ATTR_MOUNT_ROOT != 0}, nil
}

// realStatCtime resolves p as the kernel does and returns the real path
// and the statCtime of one and the same open file (so that the two
// cannot name different files when p is changed meanwhile).
func realStatCtime(p string) (string, ctimeStat, error) {
	fd, err := unix.Open(p, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", ctimeStat{}, &os.PathError{Op: "open", Path: p, Err: err}
	}
	defer unix.Close(fd)
	st, err := statxCtime(fd, "", unix.AT_EMPTY_PATH)
	if err != nil {
		return "", ctimeStat{}, err
	}
	buf := make([]byte, unix.PathMax)
	n, err := unix.Readlink("/proc/thread-self/fd/"+strconv.Itoa(fd), buf)
	if err != nil || n <= 0 || n >= len(buf) || buf[0] != '/' {
		return "", ctimeStat{}, &os.PathError{Op: "readlink", Path: p, Err: unix.EINVAL}
	}
	return string(buf[:n]), st, nil
}

// ctimeKept says whether the file system of p (st is its statx) keeps
// ctimes itself, as the guard's stamps and the walk's cache need: an
// entry made, removed or renamed sets its directory's ctime to the time,
// and nothing sets it back. FAT keeps a ctime equal to the mtime (which
// utimensat sets) in 2-second steps; FUSE and network file systems
// report what a server says: there nothing is taken from a ctime. Known
// by mount (its unique id, never reused); without one, asked each time.
func ctimeKept(p string, st *unix.Statx_t) bool {
	unique := st.Mask&unix.STATX_MNT_ID_UNIQUE != 0
	if unique {
		ctimeMounts.Lock()
		kept, ok := ctimeMounts.m[st.Mnt_id]
		ctimeMounts.Unlock()
		if ok {
			return kept
		}
	}
	var fs unix.Statfs_t
	if unix.Statfs(p, &fs) != nil {
		return false
	}
	kept := localFS(&fs)
	if unique {
		ctimeMounts.Lock()
		if len(ctimeMounts.m) >= 4096 {
			clear(ctimeMounts.m)
		}
		ctimeMounts.m[st.Mnt_id] = kept
		ctimeMounts.Unlock()
	}
	return kept
}

// ctimeMounts are ctimeKept's answers by mount.
var ctimeMounts = struct {
	sync.Mutex
	m map[uint64]bool
}{m: map[uint64]bool{}}

// localFS says whether the file system fs keeps ctimes itself and sees
// every change to it, as inotify reports them: a local disk or memory
// file system (procfs and sysfs change without events; FUSE and network
// file systems report what a server says, and changes made elsewhere
// make no event).
func localFS(fs *unix.Statfs_t) bool {
	switch uint64(fs.Type) {
	case unix.EXT4_SUPER_MAGIC, unix.XFS_SUPER_MAGIC, unix.BTRFS_SUPER_MAGIC, unix.TMPFS_MAGIC,
		unix.F2FS_SUPER_MAGIC, unix.OVERLAYFS_SUPER_MAGIC, 0x2fc12fc1 /* zfs */ :
		return true
	}
	return false
}
