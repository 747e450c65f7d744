/// Returns its argument: lets `#expect` check the result of a mutating call (the macro would
/// otherwise take the call apart and call the mutating method on an immutable copy).
func evaluated<T>(_ value: T) -> T { value }
