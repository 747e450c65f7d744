import Testing

/// The suites that replay recorded time against real servers (a walk through gpsd at 50x, a
/// minute of audio through PulseAudio) run one test at a time. In parallel, on a 2-core
/// machine, they starved each other: fixes arrived after the test gave up, a recorder's
/// source was not yet set. Serialized they take about five minutes while the other suites
/// run beside them.
@Suite(.serialized, .timeLimit(.minutes(5)), .tearsDown)
struct RealTimeSuites {}
