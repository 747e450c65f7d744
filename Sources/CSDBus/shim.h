#ifndef BACKGROUNDER_CSDBUS_SHIM_H
#define BACKGROUNDER_CSDBUS_SHIM_H

// libsystemd's sd-bus: the daemon's D-Bus binding (docs/decisions/0011-d-bus-binding.md).
#include <systemd/sd-bus.h>

#endif
