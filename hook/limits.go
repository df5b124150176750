package hook

// MaxSettingsBytes bounds an agent's settings or hooks file that install,
// doctor and the hook read (with trust.ReadRegular: a regular file only,
// opened without blocking, so that a FIFO or a device in its place is an
// error and never a wait).
const MaxSettingsBytes = 16 << 20
