import BackgrounderCore
import Testing

@Suite("What a person types for a bundle", .timeLimit(.minutes(5)))
struct BundleReferenceTests {
    let bundles = [
        BundleReference.Candidate(identifier: "org.backgrounder.samples.hello", name: "Hello"),
        BundleReference.Candidate(identifier: "org.backgrounder.samples.hikerecorder", name: "HikeRecorder"),
        BundleReference.Candidate(identifier: "com.example.hello", name: "Greeter"),
        BundleReference.Candidate(identifier: "org.backgrounder.samples.podcasts", name: "Podcasts"),
    ]

    @Test("the full identifier, a unique suffix or the name, in any case, names one bundle")
    func resolves() {
        #expect(BundleReference.resolve("com.example.hello", among: bundles) == .resolved("com.example.hello"))
        #expect(
            BundleReference.resolve("hikerecorder", among: bundles)
                == .resolved("org.backgrounder.samples.hikerecorder"))
        #expect(
            BundleReference.resolve("HikeRecorder", among: bundles)
                == .resolved("org.backgrounder.samples.hikerecorder"))
        #expect(BundleReference.resolve("samples.hello", among: bundles) == .resolved("org.backgrounder.samples.hello"))
        #expect(BundleReference.resolve("Greeter", among: bundles) == .resolved("com.example.hello"))
        #expect(BundleReference.resolve("podcasts", among: bundles) == .resolved("org.backgrounder.samples.podcasts"))
    }

    @Test("a suffix two bundles share lists both; a part of a component matches nothing")
    func ambiguousAndPartial() {
        #expect(
            BundleReference.resolve("hello", among: bundles)
                == .ambiguous(["com.example.hello", "org.backgrounder.samples.hello"]))
        // Not a component boundary: "llo" is no suffix a person means.
        if case .resolved = BundleReference.resolve("llo", among: bundles) { Issue.record("llo resolved") }
    }

    @Test("a near miss suggests the nearest; a far one suggests nothing")
    func suggestions() {
        #expect(
            BundleReference.resolve("hikerecorer", among: bundles)
                == .unknown(suggestion: "org.backgrounder.samples.hikerecorder"))
        #expect(
            BundleReference.resolve("podcast", among: bundles)
                == .unknown(suggestion: "org.backgrounder.samples.podcasts"))
        #expect(BundleReference.resolve("zzzzzzzz", among: bundles) == .unknown(suggestion: nil))
        #expect(BundleReference.resolve("x", among: []) == .unknown(suggestion: nil))
    }
}
