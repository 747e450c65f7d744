#ifndef CAUDIORING_H
#define CAUDIORING_H
#endif
