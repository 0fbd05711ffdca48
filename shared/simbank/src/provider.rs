pub const PROVIDER_CODE: &str = "simulator"; pub struct SimBank; pub enum InitialBankState {}
