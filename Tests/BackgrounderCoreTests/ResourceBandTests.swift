import BackgrounderCore
import Testing

@Suite("Resource bands", .timeLimit(.minutes(5)))
struct ResourceBandTests {
    @Test("the app in front is killed last and weighs most; a suspended app is killed first")
    func ordered() {
        let front = ResourceBand.forState(.active)
        let background = ResourceBand.forState(.background)
        let suspended = ResourceBand.forState(.suspended)
        #expect(front.oomScoreAdjustment < background.oomScoreAdjustment)
        #expect(background.oomScoreAdjustment < suspended.oomScoreAdjustment)
        #expect(front.cpuWeight > background.cpuWeight && background.cpuWeight > suspended.cpuWeight)
        #expect(front.ioWeight > background.ioWeight && background.ioWeight > suspended.ioWeight)
        for state in ApplicationState.allCases {
            let band = ResourceBand.forState(state)
            #expect((-1000...1000).contains(band.oomScoreAdjustment))
            #expect((1...10000).contains(band.cpuWeight) && (1...10000).contains(band.ioWeight))
        }
        #expect(ResourceBand.forState(.inactive) == front)
    }

    @Test(
        "a background app on an audio or location assertion gets the CPU ceiling; in front or on borrowed time it does not"
    )
    func cpuCeiling() {
        let playing = ResourceBand.forState(.background, assertions: [.audio], cpuCeiling: 0.5)
        #expect(playing.cpuMax == "50000 100000")
        #expect(ResourceBand.forState(.background, assertions: [.location], cpuCeiling: 0.25).cpuMax == "25000 100000")
        #expect(ResourceBand.forState(.active, assertions: [.audio], cpuCeiling: 0.5).cpuMax == "max")
        #expect(ResourceBand.forState(.background, assertions: [], cpuCeiling: 0.5).cpuMax == "max")
        #expect(ResourceBand.forState(.background, assertions: [.audio], cpuCeiling: nil).cpuMax == "max")
        // The kernel refuses a quota under 1 ms: a tiny ceiling is raised to it, never refused.
        #expect(ResourceBand.forState(.background, assertions: [.audio], cpuCeiling: 0.0001).cpuMax == "1000 100000")
        let app = AppManifest(
            bundleIdentifier: "org.example.app", name: "App", executable: "App", backgroundModes: [.audio])
        #expect(StandardPolicy().backgroundCPUCeiling(for: app) == 0.5)
    }
}
