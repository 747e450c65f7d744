// The policy ABI is the header in include/; this file only gives SwiftPM a C target.
