//! The slot calculator: time-slicing seats vs guaranteed memory, MPS and MIG, from
//! the real device-plugin config. Not built yet (issue 7).
