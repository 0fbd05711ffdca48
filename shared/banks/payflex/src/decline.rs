//! VakıfBank PayFlex V4: the bank's codes → stable decline codes ([`DeclineCode`]), read by the kit's
//! adapter through `Protocol::DECLINE_CODES`. A code not named here falls back to the kit's
//! shared tables (`paygate_bankkit::decline`: ISO 8583 two-digit host codes, the kit's own
//! codes); none at all is `unclassified`. An unknown outcome is `outcome_unknown` whatever its
//! code, and a cancel refused for the end-of-day cut is `after_end_of_day`, so neither needs a
//! line here.
//!
//! Sources: this crate's README "Code → outcome" (MEWS `PayFlexV4PosResponseDataMapper`;
//! VakıfBank's VPOS result-code list as transcribed in an indexed PHP client) and the
//! simulator's code table (`src/sim`).

use paygate_domain::decline::DeclineCode;

use DeclineCode as D;

/// Bank code → stable code.
pub const TABLE: &[(&str, DeclineCode)] = &[
    ("9039", D::InvalidCredentials),    // Üye işyeri bulunamadı
    ("9065", D::InvalidCredentials),    // Üye işyeri bulunamadı
    ("9040", D::InvalidCredentials),    // terminal unknown
    ("5001", D::InvalidCredentials),    // wrong merchant password
    ("5002", D::OperationNotPermitted), // merchant inactive
    ("2011", D::InvalidCredentials),    // no terminal
    ("2200", D::OperationNotPermitted), // no permission
    ("6019", D::InvalidRequest),        // invalid request
    ("1016", D::NotFound),              // Referans işlem bulunamadı
    ("1083", D::AlreadyReversed),       // Referans islem daha önceden iptal edilmis
    ("1088", D::InvalidAmount), // Tutar geçersiz (simulator; the table: Önprovizyon iptal edilmis)
    ("1101", D::AlreadyReversed), // Referans transaction reverse edilmis
    ("1059", D::AlreadyReversed), // İşlemin tamamı iade edilmiş
    ("1084", D::OperationNotPermitted), // İade işlemi olan işlem iptal edilemez
    ("1085", D::NotFound),      // Kapatılacak açık provizyon bulunamadı
    ("1086", D::AmountExceedsOriginal), // Kapama tutarı provizyon tutarını aşamaz
    ("1087", D::AmountExceedsOriginal), // İade tutarı kalan tutarı aşamaz
    ("1089", D::OperationNotPermitted), // İşlem tipi desteklenmiyor
    ("1090", D::NotFound),      // İade edilecek satış bulunamadı
    ("1091", D::InvalidRequest), // Para birimi uyuşmuyor
    ("0312", D::InvalidCard),   // MEWS fixture
];
