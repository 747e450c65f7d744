extension String {
    /// Whether this name sorts before `other` the way people number files: runs of digits compare
    /// as numbers ("2 x" before "10 x"), the rest without regard to case, and names that still tie
    /// fall back to plain comparison so the order is total.
    func naturallyPrecedes(_ other: String) -> Bool {
        let left = naturalChunks
        let right = other.naturalChunks
        for (a, b) in zip(left, right) where a != b {
            if a.isNumber, b.isNumber {
                // Compare by value without converting, so any number of digits works.
                let x = a.text.drop { $0 == "0" }
                let y = b.text.drop { $0 == "0" }
                if x.count != y.count { return x.count < y.count }
                if x != y { return x < y }
                continue
            }
            let x = a.text.lowercased()
            let y = b.text.lowercased()
            if x != y { return x < y }
        }
        if left.count != right.count { return left.count < right.count }
        return self < other
    }

    /// Alternating runs of ASCII digits and of everything else.
    private var naturalChunks: [(text: Substring, isNumber: Bool)] {
        var chunks: [(text: Substring, isNumber: Bool)] = []
        var start = startIndex
        while start < endIndex {
            let isNumber = self[start].isASCIIDigit
            let end = self[start...].firstIndex { $0.isASCIIDigit != isNumber } ?? endIndex
            chunks.append((self[start..<end], isNumber))
            start = end
        }
        return chunks
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isWholeNumber }
}
