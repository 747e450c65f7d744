// A policy plug-in that hangs, for the watchdog test (Tests/IntegrationTests/WatchdogTests.swift).
//
// Asked for the scheduling numbers of org.backgrounder.tests.pushed, it creates GATE.entered
// and then blocks reading the FIFO named by $HANGING_POLICY_GATE until the test writes to it,
// as a plug-in stuck on a slow disk or a lock would. The daemon asks on its app core, so the
// core hangs for real. Every other question gets the standard numbers.
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backgrounder_policy.h"

int32_t hanging_policy(backgrounder_policy_v1 *policy) {
    return policy->abi == BACKGROUNDER_POLICY_ABI_V1 ? 0 : -1;
}

int32_t hanging_scheduling(const char *bundle_identifier, int32_t on_external_power, backgrounder_scheduling_v1 *numbers) {
    (void)on_external_power;
    if (numbers->abi != BACKGROUNDER_SCHEDULING_ABI_V1) return -1;
    const char *gate = getenv("HANGING_POLICY_GATE");
    if (gate == NULL || strcmp(bundle_identifier, "org.backgrounder.tests.pushed") != 0) return 0;
    char entered[4096];
    snprintf(entered, sizeof entered, "%s.entered", gate);
    int marker = open(entered, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    if (marker >= 0) close(marker);
    // Blocks until the test opens the FIFO to write, then until it writes or closes.
    int fifo = open(gate, O_RDONLY | O_CLOEXEC);
    if (fifo >= 0) {
        char byte;
        (void)read(fifo, &byte, 1);
        close(fifo);
    }
    return 0;
}
