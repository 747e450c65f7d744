public import Foundation

extension ScheduleSimulation {
    /// The day the unit tests and `bgbench schedule` simulate: twenty apps with varied fetch
    /// intervals (from "minimum" to twelve hours, and off), results (always new data, never,
    /// mixed, failing), app-refresh requests every half hour to six hours, a person opening some
    /// of them, and starts spread over the first hour so they are not in step to begin with.
    public static func twentyApps(start: Date, policy: SchedulingPolicy = SchedulingPolicy()) -> ScheduleSimulation {
        let hour: TimeInterval = 3600
        let apps: [App] = [
            App(identifier: "org.example.news", interval: .minimum, refreshEvery: hour, opens: [8 * hour, 12 * hour]),
            App(identifier: "org.example.mail", interval: .seconds(600), results: [.newData, .noData]),
            App(identifier: "org.example.quiet", interval: .minimum, results: [.noData]),
            App(
                identifier: "org.example.weather", interval: .seconds(1800), results: [.newData, .noData, .noData],
                refreshEvery: 2 * hour),
            App(
                identifier: "org.example.podcasts", interval: .seconds(hour), results: [.noData, .newData],
                refreshEvery: 4 * hour),
            App(identifier: "org.example.opened", interval: .minimum, results: [.failed], opens: [6 * hour]),
            App(
                identifier: "org.example.chat", interval: .minimum,
                opens: [1 * hour, 2 * hour, 3 * hour, 9 * hour, 18 * hour]),
            App(identifier: "org.example.stocks", interval: .seconds(1200), results: [.newData, .newData, .noData]),
            App(identifier: "org.example.fitness", interval: .never, refreshEvery: hour),
            App(identifier: "org.example.photos", interval: .never, refreshEvery: 6 * hour),
            App(
                identifier: "org.example.calendar", interval: .seconds(2 * hour), results: [.noData], refreshEvery: hour
            ),
            App(identifier: "org.example.reader", interval: .minimum, results: [.newData, .failed]),
            App(identifier: "org.example.maps", interval: .seconds(12 * hour)),
            App(
                identifier: "org.example.social", interval: .minimum, results: [.newData, .newData, .noData, .failed],
                refreshEvery: hour / 2),
            App(identifier: "org.example.bank", interval: .seconds(4 * hour), results: [.noData]),
            App(identifier: "org.example.notes", interval: .seconds(1.5 * hour)),
            App(identifier: "org.example.music", interval: .minimum, results: [.noData, .newData]),
            App(
                identifier: "org.example.todo", interval: .seconds(0.75 * hour), results: [.newData, .noData],
                refreshEvery: 3 * hour),
            App(identifier: "org.example.radio", interval: .seconds(900), results: [.failed, .newData]),
            App(identifier: "org.example.games", interval: .never, refreshEvery: 2 * hour),
        ]
        // Starts about 3 minutes apart at uneven moments, as people start apps (quiet first, so
        // its backoff has the whole day to reach the cap). A fixed sequence, the same every run.
        let started = apps.enumerated().map { index, app in
            var app = app
            let jitter = Double((index * 7919 + 104_729) % 1000) / 1000 * 180
            app.startsAt = app.identifier == "org.example.quiet" ? 0 : Double(index) * 180 + jitter
            return app
        }
        return ScheduleSimulation(apps: started, policy: policy, start: start, length: 86_400)
    }
}
