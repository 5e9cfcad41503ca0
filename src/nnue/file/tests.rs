//! Network file tests: round trip, the pinned layout, one rejection per
//! error variant with its offset, and random bytes, truncations and damage.

use super::*;
use crate::nnue::header::HeaderError;
use crate::nnue::FloatNetwork;
use proptest::prelude::*;

/// A small valid file (N = 16: 24 708 bytes).
fn small_file() -> Vec<u8> {
    Network::random(16, 7).to_bytes()
}

/// Recomputes the checksum after editing `bytes` (so a test reaches the
/// check it is about).
fn seal(bytes: &mut [u8]) {
    let body = bytes.len() - CHECKSUM_LEN;
    let sum = fnv1a64(&bytes[..body]);
    bytes[body..].copy_from_slice(&sum.to_le_bytes());
}

/// `small_file` with `value` written at `offset`, resealed.
fn edited(offset: usize, value: &[u8]) -> Vec<u8> {
    let mut bytes = small_file();
    bytes[offset..offset + value.len()].copy_from_slice(value);
    seal(&mut bytes);
    bytes
}

fn rejected(bytes: &[u8]) -> NetError {
    match Network::from_bytes(bytes) {
        Ok(_) => panic!("a bad file was accepted"),
        Err(e) => e,
    }
}

#[test]
fn network_round_trips_through_bytes_and_an_atomic_file() {
    let net = Network::random(48, 1);
    assert_eq!(Network::from_bytes(&net.to_bytes()).unwrap(), net);
    let dir = crate::testdata::TempDir::new("nnue");
    let path = dir.file("test.nnue");
    net.write(&path).unwrap();
    assert_eq!(Network::load(&path).unwrap(), net);
}

#[test]
fn file_bytes_follow_the_documented_layout() {
    let net = Network::random(16, 7);
    let bytes = net.to_bytes();
    assert_eq!(bytes.len(), file_len(16));
    assert_eq!(bytes.len(), 24 + 1542 * 16 + 12);
    let header: [u8; 24] =
        [b'A', b'R', b'N', b'N', 1, 0, 0, 0, 0, 3, 0, 0, 16, 0, 0, 0, 255, 0, 64, 0, 0x90, 0x01, 0, 0];
    assert_eq!(bytes[..24], header);
    // Feature weight [1][2] (input 1, unit 2), the first bias, the second
    // output weight and the output bias, each at its documented offset.
    let i16_at = |o: usize| i16::from_le_bytes([bytes[o], bytes[o + 1]]);
    assert_eq!(i16_at(24 + 2 * (16 + 2)), net.feature_weights()[16 + 2]);
    assert_eq!(i16_at(24 + 1536 * 16), net.feature_bias()[0]);
    assert_eq!(i16_at(24 + 1538 * 16 + 2), net.output_weights()[1]);
    let bias_at = 24 + 1542 * 16;
    assert_eq!(i32::from_le_bytes(bytes[bias_at..bias_at + 4].try_into().unwrap()), net.output_bias());
    // Pins the random generator and the writer together.
    assert_eq!(fnv1a64(&bytes), 0x3b67_c1c0_60ca_f5ac);
}

#[test]
fn loading_a_missing_file_is_an_io_error() {
    let err = Network::load(std::path::Path::new("/nonexistent/archivist.nnue")).unwrap_err();
    assert!(matches!(err, NetError::Io(_)));
    assert_eq!(err.offset(), None);
}

#[test]
fn bad_magic_is_rejected_at_offset_0() {
    let err = rejected(&edited(0, b"NNUE"));
    assert!(matches!(err, NetError::Header(HeaderError::BadMagic { .. })));
    assert_eq!(err.offset(), Some(0));
    assert_eq!(err.to_string(), "bad magic at offset 0: expected \"ARNN\"");
    assert!(
        matches!(rejected(b"AX"), NetError::Header(HeaderError::BadMagic { .. })),
        "a short file with a wrong start is not a network"
    );
}

#[test]
fn unsupported_version_is_rejected_at_offset_4() {
    let err = rejected(&edited(4, &2u32.to_le_bytes()));
    assert!(matches!(err, NetError::Header(HeaderError::UnsupportedVersion { version: 2, .. })));
    assert_eq!(err.offset(), Some(4));
}

#[test]
fn wrong_input_count_is_rejected_at_offset_8() {
    let err = rejected(&edited(8, &769u32.to_le_bytes()));
    assert!(matches!(err, NetError::Header(HeaderError::BadInputCount { count: 769 })));
    assert_eq!(err.offset(), Some(8));
}

#[test]
fn bad_hidden_sizes_are_rejected_at_offset_12() {
    for hidden in [0u32, 8, 24, 4112, u32::MAX] {
        let err = rejected(&edited(12, &hidden.to_le_bytes()));
        assert!(
            matches!(err, NetError::Header(HeaderError::BadHiddenSize { hidden: h, .. }) if h == hidden),
            "{hidden}: {err}"
        );
        assert_eq!(err.offset(), Some(12));
    }
}

#[test]
fn bad_quantisation_is_rejected_at_its_field() {
    for (offset, value, field) in [(16, 0u16, "QA"), (16, 256, "QA"), (18, 0, "QB"), (20, 0, "SCALE")] {
        let err = rejected(&edited(offset, &value.to_le_bytes()));
        assert!(
            matches!(err, NetError::Header(HeaderError::BadQuantisation { field: f, value: v, .. }) if f == field && v == value)
        );
        assert_eq!(err.offset(), Some(offset));
    }
    assert!(FloatNetwork::zeros(16, Quantisation { qa: 300, qb: 64, scale: 400 }).is_err());
}

#[test]
fn unknown_flags_are_rejected_at_offset_22() {
    for (bytes, value) in [([0u8, 1u8], 0x0100u16), ([2, 0], 0x0002), ([3, 0], 0x0003)] {
        let err = rejected(&edited(22, &bytes));
        assert!(matches!(err, NetError::Header(HeaderError::UnknownFlags { value: v, .. }) if v == value), "{err}");
        assert_eq!(err.offset(), Some(22));
    }
}

#[test]
fn the_hand_written_base_is_flag_bit_0_and_round_trips() {
    let mut net = FloatNetwork::random(16, 5);
    let plain = net.quantise().to_bytes();
    assert_eq!(plain[22..24], [0, 0]);
    net.set_base(crate::nnue::Base::HandWritten);
    let based = net.quantise().to_bytes();
    assert_eq!(based[22..24], [1, 0]);
    let back = Network::from_bytes(&based).unwrap();
    assert_eq!(back.base(), crate::nnue::Base::HandWritten);
    assert_eq!(back, net.quantise());
    assert_eq!(Network::from_bytes(&plain).unwrap().base(), crate::nnue::Base::Zero);
}

#[test]
fn truncated_files_report_where_they_end_and_the_length_expected() {
    let bytes = small_file();
    let full = bytes.len();
    for (len, expected) in [(0, HEADER_LEN), (3, HEADER_LEN), (23, HEADER_LEN), (24, full), (full - 1, full)] {
        let err = rejected(&bytes[..len]);
        assert!(
            matches!(err, NetError::Truncated(t) if t.len == len as u64 && t.offset + t.needed == expected as u64),
            "{err}"
        );
    }
}

#[test]
fn trailing_bytes_are_rejected_after_the_checksum() {
    let mut bytes = small_file();
    let full = bytes.len();
    bytes.extend_from_slice(&[0; 5]);
    let err = rejected(&bytes);
    assert!(matches!(err, NetError::TrailingBytes { offset, extra: 5 } if offset == full));
}

#[test]
fn checksum_mismatch_is_reported_at_the_checksum() {
    let mut bytes = small_file();
    bytes[1000] ^= 0x10;
    let err = rejected(&bytes);
    assert!(matches!(err, NetError::ChecksumMismatch { stored, computed, .. } if stored != computed));
    assert_eq!(err.offset(), Some(bytes.len() - 8));
}

#[test]
fn output_weight_beyond_the_limit_is_rejected_at_its_offset() {
    // QA = 255 allows ±128; weight 5 set to 129.
    let offset = 24 + 1538 * 16 + 2 * 5;
    let err = rejected(&edited(offset, &129i16.to_le_bytes()));
    assert!(matches!(err, NetError::OutputWeightOutOfRange { index: 5, value: 129, limit: 128, .. }));
    assert_eq!(err.offset(), Some(offset));
    assert!(Network::from_bytes(&edited(offset, &(-128i16).to_le_bytes())).is_ok(), "the limit itself is allowed");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(tail in proptest::collection::vec(any::<u8>(), 0..200), header in 0usize..3) {
        // Behind a valid header (or a valid prefix of one) the parser goes
        // past the magic check.
        let mut bytes = small_file()[..[0, 16, 24][header]].to_vec();
        bytes.extend_from_slice(&tail);
        prop_assert!(Network::from_bytes(&bytes).is_err());
    }

    #[test]
    fn every_truncation_is_a_truncated_error(len in 0usize..file_len(16)) {
        let bytes = small_file();
        let is_truncated = matches!(Network::from_bytes(&bytes[..len]), Err(NetError::Truncated(t)) if t.len == len as u64);
        prop_assert!(is_truncated);
    }

    #[test]
    fn any_single_byte_change_is_rejected(offset in 0usize..file_len(16), flip in 1u8..=255) {
        let mut bytes = small_file();
        bytes[offset] ^= flip;
        prop_assert!(Network::from_bytes(&bytes).is_err());
    }
}
