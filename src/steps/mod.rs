//! The eight lab steps (../shared/DESIGN.md §3): their order, titles and the issue
//! that builds each one. One module per step's view lands here as its issue does.

pub mod check;
pub mod containerd;
pub mod not_built;
pub mod restart;
#[cfg(feature = "k8s-steps")]
pub mod kubernetes;
#[cfg(feature = "k8s-steps")]
pub mod rollout;
pub mod slots;

use crate::i18n::MessageId;

/// A step of the lab, in the order the learner walks them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Step {
    #[default]
    MainConfig,
    DropIn,
    CheckScript,
    Restart,
    RuntimeClass,
    Scheduling,
    Slots,
    Rollout,
}

impl Step {
    /// All steps in lab order.
    pub const ALL: [Step; 8] = [
        Step::MainConfig,
        Step::DropIn,
        Step::CheckScript,
        Step::Restart,
        Step::RuntimeClass,
        Step::Scheduling,
        Step::Slots,
        Step::Rollout,
    ];

    /// 1-based position, as shown to the learner.
    pub fn number(self) -> usize {
        Step::ALL.iter().position(|s| *s == self).map_or(1, |i| i + 1)
    }

    /// The step at 1-based `n`, if there is one.
    pub fn from_number(n: usize) -> Option<Step> {
        n.checked_sub(1).and_then(|i| Step::ALL.get(i)).copied()
    }

    pub fn title(self) -> MessageId {
        match self {
            Step::MainConfig => MessageId::Step1Title,
            Step::DropIn => MessageId::Step2Title,
            Step::CheckScript => MessageId::Step3Title,
            Step::Restart => MessageId::Step4Title,
            Step::RuntimeClass => MessageId::Step5Title,
            Step::Scheduling => MessageId::Step6Title,
            Step::Slots => MessageId::Step7Title,
            Step::Rollout => MessageId::Step8Title,
        }
    }

    /// The hint under the heading of a built step (`None` while the step is not built).
    pub fn hint(self) -> Option<MessageId> {
        match self {
            Step::MainConfig => Some(MessageId::Hint1),
            Step::DropIn => Some(MessageId::Hint2),
            Step::CheckScript => Some(MessageId::Hint3),
            Step::Restart => Some(MessageId::Hint4),
            Step::Slots => Some(MessageId::Hint7),
            Step::RuntimeClass if cfg!(feature = "k8s-steps") => Some(MessageId::Hint5),
            Step::Scheduling if cfg!(feature = "k8s-steps") => Some(MessageId::Hint6),
            Step::Rollout if cfg!(feature = "k8s-steps") => Some(MessageId::Hint8),
            _ => None,
        }
    }

    /// The issue that builds this step's view (shown while it is not built).
    pub fn issue(self) -> u32 {
        match self {
            Step::MainConfig | Step::DropIn | Step::Restart => 3,
            Step::CheckScript => 4,
            Step::RuntimeClass | Step::Scheduling => 5,
            Step::Slots => 7,
            Step::Rollout => 6,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Numbers and positions agree both ways, and there is no step 0 or 9.
    #[test]
    fn numbering_round_trips() {
        for (i, step) in Step::ALL.iter().enumerate() {
            assert_eq!(step.number(), i + 1);
            assert_eq!(Step::from_number(i + 1), Some(*step));
        }
        assert_eq!(Step::from_number(0), None);
        assert_eq!(Step::from_number(9), None);
    }
}
