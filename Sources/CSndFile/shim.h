// libsndfile: decodes WAV, FLAC, Ogg/Vorbis/Opus and, where the installed build has it, MP3.
#ifndef CSNDFILE_SHIM_H
#define CSNDFILE_SHIM_H

#include <sndfile.h>

#endif
