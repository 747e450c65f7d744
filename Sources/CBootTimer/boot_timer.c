// The wrappers are inline in include/CBootTimer.h; SwiftPM needs a source file per C target.
#include "CBootTimer.h"
