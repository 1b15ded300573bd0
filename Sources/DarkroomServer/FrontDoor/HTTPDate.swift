import Foundation
import Synchronization
import DarkroomImaging

/// The `Date` header's value (RFC 9110's IMF-fixdate), made once a second,
/// for answers written without Hummingbird, which adds its own to the rest.
final class HTTPDate: Sendable {
    private let cached = Locked<(second: Int, text: String)>((-1, ""))

    var now: String {
        let second = time(nil)
        if let text = cached.withLock({ $0.second == second ? $0.text : nil }) { return text }
        // Formatted outside the lock (gmtime_r takes glibc's own).
        let text = Self.format(second)
        cached.withLock { $0 = (second, text) }
        return text
    }

    static func format(_ second: Int) -> String {
        var seconds = time_t(second)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(1900 + parts.tm_year) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }

    /// The seconds since 1970 an HTTP date names, in any of the three forms
    /// RFC 9110 says a recipient reads (IMF-fixdate, RFC 850, asctime), or
    /// nil when it is none of them.
    static func parse(_ text: String) -> Int? {
        guard text.utf8.count <= 64 else { return nil }
        let words = text.split(separator: " ")
        let day: Substring, month: Substring, year: Substring, clock: Substring
        switch words.count {
        case 6 where words[0].hasSuffix(",") && words[5] == "GMT":  // Sun, 06 Nov 1994 08:49:37 GMT
            (day, month, year, clock) = (words[1], words[2], words[3], words[4])
        case 4 where words[0].hasSuffix(",") && words[3] == "GMT":  // Sunday, 06-Nov-94 08:49:37 GMT
            let parts = words[1].split(separator: "-")
            guard parts.count == 3 else { return nil }
            (day, month, year, clock) = (parts[0], parts[1], parts[2], words[2])
        case 5:  // Sun Nov  6 08:49:37 1994
            (day, month, year, clock) = (words[2], words[1], words[4], words[3])
        default:
            return nil
        }
        let times = clock.split(separator: ":")
        guard let d = Int(day), (1...31).contains(d), let m = months.firstIndex(of: String(month)), var y = Int(year),
              times.count == 3, let hour = Int(times[0]), let minute = Int(times[1]), let second = Int(times[2]),
              (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second)
        else { return nil }
        if year.count == 2 { y += y < 70 ? 2000 : 1900 }
        guard (1970...9999).contains(y) else { return nil }
        return daysSince1970(year: y, month: m + 1, day: d) * 86_400 + hour * 3_600 + minute * 60 + second
    }

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar.
    private static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = y / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// Whether `text` is an HTTP date: the usual IMF-fixdate is known by its
    /// shape alone, so an answer's `Last-Modified` costs no parse.
    static func isValid(_ text: String) -> Bool {
        (text.utf8.count == 29 && text.hasSuffix(" GMT")) || parse(text) != nil
    }
}
