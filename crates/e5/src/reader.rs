//! Little-endian reads from the model image, each checked against its end.

use crate::Error;

pub struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        Self { bytes, at: 0 }
    }

    pub fn bytes(&mut self, n: usize) -> Result<&'a [u8], Error> {
        let end = self.at.checked_add(n).ok_or(Error::Truncated)?;
        let out = self.bytes.get(self.at..end).ok_or(Error::Truncated)?;
        self.at = end;
        Ok(out)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], Error> {
        let mut out = [0; N];
        out.copy_from_slice(self.bytes(N)?);
        Ok(out)
    }

    pub fn u8(&mut self) -> Result<u8, Error> {
        Ok(self.array::<1>()?[0])
    }

    pub fn u16(&mut self) -> Result<u16, Error> {
        Ok(u16::from_le_bytes(self.array()?))
    }

    pub fn u32(&mut self) -> Result<u32, Error> {
        Ok(u32::from_le_bytes(self.array()?))
    }

    pub fn u64(&mut self) -> Result<u64, Error> {
        Ok(u64::from_le_bytes(self.array()?))
    }

    pub fn f32(&mut self) -> Result<f32, Error> {
        Ok(f32::from_le_bytes(self.array()?))
    }

    /// A count (an `i32` that must not be negative).
    pub fn count(&mut self) -> Result<usize, Error> {
        usize::try_from(self.u32()? as i32).map_err(|_| Error::Malformed("a negative count"))
    }

    /// A Unicode scalar value written as a `u32`.
    pub fn char(&mut self) -> Result<char, Error> {
        char::from_u32(self.u32()?).ok_or(Error::Malformed("a character"))
    }

    pub fn u32s(&mut self, n: usize) -> Result<Vec<u32>, Error> {
        (0..n).map(|_| self.u32()).collect()
    }

    pub fn f32s(&mut self, n: usize) -> Result<Vec<f32>, Error> {
        (0..n).map(|_| self.f32()).collect()
    }
}
