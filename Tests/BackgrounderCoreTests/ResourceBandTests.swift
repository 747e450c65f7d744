import BackgrounderCore
import Testing

@Suite("Resource bands")
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
}
