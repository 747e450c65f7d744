// Everything is in include/CEpoll.h; SwiftPM needs a source file for a C target.
#include "CEpoll.h"
