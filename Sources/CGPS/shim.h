// Thin wrappers over libgps macros Swift cannot import, prefixed cgps_.
#ifndef CGPS_SHIM_H
#define CGPS_SHIM_H

#include <gps.h>
#include <stdbool.h>

/// Whether the last gps_read() delivered a report carrying a fix mode (a TPV).
static inline bool cgps_has_mode(const struct gps_data_t *data) {
    return (data->set & MODE_SET) != 0;
}

/// Whether the last report carried a fix time.
static inline bool cgps_has_time(const struct gps_data_t *data) {
    return (data->set & TIME_SET) != 0;
}

/// Whether the last report carried a latitude/longitude.
static inline bool cgps_has_latlon(const struct gps_data_t *data) {
    return (data->set & LATLON_SET) != 0;
}

/// The watch flags the daemon streams with: JSON reports, enabled.
static inline unsigned int cgps_watch_json(void) {
    return WATCH_ENABLE | WATCH_JSON;
}

/// The flags that stop streaming.
static inline unsigned int cgps_watch_disable(void) {
    return WATCH_DISABLE;
}

/// gps_open's error code, as a message.
static inline const char *cgps_errstr(int code) {
    return gps_errstr(code);
}

#endif
