//! Small geometry helpers.

/// The area of a rectangle.
pub fn area(width: f64, height: f64) -> f64 {
    width * height
}

/// The perimeter of a rectangle.
pub fn perimeter(width: f64, height: f64) -> f64 {
    2.0 * (width + height)
}

/// Scales both sides by `factor`.
pub fn scale(width: f64, height: f64, factor: f64) -> (f64, f64) {
    (width * factor, height * factor)
}
