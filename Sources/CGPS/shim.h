// Thin wrappers over libgps macros Swift cannot import, prefixed cgps_.
#ifndef CGPS_SHIM_H
#define CGPS_SHIM_H

#include <gps.h>
#include <stdbool.h>

/// Whether the last line read delivered a report carrying a fix mode (a TPV).
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

/// libgps's parser of one JSON object, the one gps_unpack() calls for each object on a line:
/// exported by libgps, declared only in gpsd's own gps_json.h, which is not installed.
extern int libgps_json_unpack(const char *buf, struct gps_data_t *gpsdata, const char **end);

/// What gps_read() does with one line from gpsd (NUL-terminated, newline removed), but never
/// hangs. libgps 3.22's gps_unpack() loops for ever when an object's parse leaves the position
/// where it started: after a parse error its JSON reader points `end` at the error, and when
/// the text from there names a known class but does not start an object, every later attempt
/// fails at the same place (`{x"class":"TPV"` does it, and so does well-formed JSON such as
/// `{"class":"TPV","mode":3,"device":{"class":"TPV"}}`; Fuzz/Targets/gpsd.swift found it).
/// This is gps_unpack()'s loop with that one exit added.
static inline void cgps_unpack_line(const char *line, struct gps_data_t *data) {
    data->set &= ~PACKET_SET;
    if (line[0] == '{') {
        const char *segment = line;
        while (segment != NULL && segment[0] != '\0') {
            const char *next = segment;
            if (libgps_json_unpack(segment, data, &next) == -1 || next == NULL || next <= segment) {
                break;
            }
            segment = next;
        }
    }
    data->set |= PACKET_SET;
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
