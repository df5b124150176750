package trust

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// ReadRegular reads the file at path, following a symlink, when it is a
// regular file of at most max bytes, and never blocks: anything else (a
// directory, a FIFO, a socket, a device such as /dev/zero or what
// /dev/stdin names, a dangling or looping symlink, an unreadable file, a
// larger file) is an error that names the file and says what it is. The
// file's type is checked before it is opened, and again on the open file
// (opened with O_NONBLOCK where the system has it), so that one swapped
// for a FIFO in between cannot block the read. An error wraps
// fs.ErrNotExist only when nothing at all is at path.
func ReadRegular(path string, max int64) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, describeStatError(path, err)
	}
	if err := regularWithin(path, st, max); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|openNoBlock, 0)
	if err != nil {
		return nil, describeStatError(path, err)
	}
	defer f.Close()
	if st, err = f.Stat(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := regularWithin(path, st, max); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s: over the %d-byte limit", path, max)
	}
	return data, nil
}

// regularWithin says what st is when it is not a regular file of at most
// max bytes.
func regularWithin(path string, st fs.FileInfo, max int64) error {
	if what := FileKind(st.Mode()); what != "" {
		return fmt.Errorf("%s is %s, not a regular file", path, what)
	}
	if st.Size() > max {
		return fmt.Errorf("%s: %d bytes, over the %d-byte limit", path, st.Size(), max)
	}
	return nil
}

// FileKind names what a file of mode m is when it is not a regular file
// ("a directory", "a FIFO (named pipe)", "a device", "a socket"), "" for a
// regular file.
func FileKind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return ""
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO (named pipe)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&(fs.ModeDevice|fs.ModeCharDevice) != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	}
	return "not a regular file (" + m.Type().String() + ")"
}

// describeStatError says why path could not be reached: a symlink to
// nothing, a symlink loop, or the error itself.
func describeStatError(path string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		if lst, lerr := os.Lstat(path); lerr == nil && lst.Mode()&fs.ModeSymlink != 0 {
			t, _ := os.Readlink(path)
			return fmt.Errorf("%s is a symlink to %s, which does not exist", path, t)
		}
		return err
	}
	if isLoop(err) {
		return fmt.Errorf("%s is a symlink that loops", path)
	}
	return fmt.Errorf("%s cannot be read: %w", path, err)
}
