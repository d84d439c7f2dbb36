//! [`hook_registry!`]: a hook trait and the registry over it, from one list of hooks.
//!
//! The registry ([`super::Registry`]) is a type-level list, `(A, (B, ()))`, because the hooks
//! are generic over `JsonView` (no `dyn`); its loops are a trait implemented for `()` and for
//! `(E, Rest)`, so each is unrolled at compile time. Written by hand, each hook's signature
//! would be stated four times (the hook trait, the registry trait, its `()` impl, its
//! `(E, Rest)` impl); here it is stated once, with how the registry combines the extensions'
//! answers and which extensions it asks.

/// Writes a hook trait (each hook with its default, the no-op of its rule) and the registry
/// trait over it, implemented for `()` (no extension) and `(E, Rest)` (extension `E`, then the
/// rest, asked in that order; every method of both impls `#[inline]`, so a loop over the list
/// is unrolled). The answer of an extension not asked is its rule's no-op, so it is evaluated
/// exactly as a hand-written loop would: `E` first, then `Rest` unless the rule stops there.
///
/// ```text
/// hook_registry! {
///     /// What one extension adds at ….
///     pub(crate) trait SomeHooks: ExtensionHooks {
///         /// A state slot: the registry's is `(E::Slot, Rest::Slot)`.
///         type Slot: Clone + Debug + Default;
///
///         /// A hook: its signature as in the hook trait, then `=> RULE` or `=> RULE if GUARD`.
///         fn hook<'v, V: JsonView<'v>>(v: &V, s: &mut Self::Slot) -> Option<bool>
///             => first_some if negotiated;
///     }
///
///     /// The registry's loops over `SomeHooks`.
///     pub(crate) trait SomeRegistry;
/// }
/// ```
///
/// RULE, how the registry combines the extensions' answers, with its no-op (the hook's default,
/// the `()` impl's answer and what an extension not asked answers):
/// - `first_some`: the first `Some` wins, the rest is not asked (no-op `None`);
/// - `any`: `true` when one is, the rest is not asked (no-op `false`);
/// - `each`: every extension, in order (no-op `{}`);
/// - `slots`: each extension's answer in its slot of the tuple (no-op `Default::default()`; with
///   no GUARD the hook has no default: every extension fills its slot);
/// - `sum`: the sum (no-op `0`).
///
/// GUARD, which extensions are asked (none: all of them):
/// - `negotiated`: the registry method takes `neg: Negotiated` first and asks an extension only
///   where `neg.has(E::BIT)`;
/// - `judges(NEG, REV, RESULT)`: only where [`super::ExtensionHooks::judges`] says so, its
///   arguments written with the hook's parameters; `negotiated` as NEG is the registry's own
///   `neg: Negotiated` parameter, which it then takes first.
///
/// A parameter of type `&Self::Slot` or `&mut Self::Slot` is the extension's state slot: `E`
/// gets field `.0` of the registry's, `Rest` field `.1`. Attributes (docs, `#[cfg(test)]`)
/// apply to the hook and its registry method alike; the registry method's docs add the rule.
macro_rules! hook_registry {
    (
        $(#[$hooks_attr:meta])*
        $hooks_vis:vis trait $Hooks:ident: $Base:path { $($body:tt)* }
        $(#[$registry_attr:meta])*
        $registry_vis:vis trait $Registry:ident;
    ) => {
        $crate::ext::hook_registry!(@parse
            [$(#[$hooks_attr])* $hooks_vis $Hooks $Base]
            [$(#[$registry_attr])* $registry_vis $Registry]
            [] [] $($body)*);
    };

    // The hook trait's items, one at a time (a slot type, then a hook), into two lists.
    (@parse $hooks:tt $registry:tt [$($slots:tt)*] $hook_list:tt
        $(#[$attr:meta])* type $Slot:ident: $bound:ident $(+ $bounds:ident)*;
        $($rest:tt)*
    ) => {
        $crate::ext::hook_registry!(@parse $hooks $registry
            [$($slots)* {[$(#[$attr])*] $Slot [$bound $(+ $bounds)*]}] $hook_list $($rest)*);
    };
    (@parse $hooks:tt $registry:tt $slots:tt [$($hook_list:tt)*]
        $(#[$attr:meta])*
        fn $name:ident $(<$lt:lifetime, $V:ident: $B:path>)? ($($params:tt)*) $(-> $ret:ty)?
            => $rule:ident $(if $guard:ident $(($($guard_args:tt)*))?)?;
        $($rest:tt)*
    ) => {
        $crate::ext::hook_registry!(@parse $hooks $registry $slots [$($hook_list)* {
            [$($guard $(($($guard_args)*))?)?] $rule [$(#[$attr])*] $name [$(<$lt, $V: $B>)?]
            [$($params)*] [$(-> $ret)?]
        }] $($rest)*);
    };
    (@parse
        [$(#[$hooks_attr:meta])* $hooks_vis:vis $Hooks:ident $Base:path]
        [$(#[$registry_attr:meta])* $registry_vis:vis $Registry:ident]
        [$({[$($slot_attr:tt)*] $Slot:ident [$($bound:tt)*]})*]
        [$($hook:tt)*]
    ) => {
        $(#[$hooks_attr])*
        $hooks_vis trait $Hooks: $Base {
            $($($slot_attr)* type $Slot: $($bound)*;)*
            $($crate::ext::hook_registry!(@hook $hook);)*
        }

        $(#[$registry_attr])*
        $registry_vis trait $Registry {
            $($($slot_attr)* type $Slot: $($bound)*;)*
            $($crate::ext::hook_registry!(@guard [@registry_fn $Hooks] $hook);)*
        }

        impl $Registry for () {
            $(type $Slot = ();)*
            $($crate::ext::hook_registry!(@guard [@nil_fn] $hook);)*
        }

        impl<E: $Hooks, Rest: $Registry> $Registry for (E, Rest) {
            $(type $Slot = (E::$Slot, Rest::$Slot);)*
            $($crate::ext::hook_registry!(@guard [@cons_fn] $hook);)*
        }
    };

    // The hook in the hook trait: its default is its rule's no-op, but a slot every extension
    // fills has none.
    (@hook {[] slots [$($attr:tt)*] $name:ident [$($gen:tt)*] [$($params:tt)*] [$($ret:tt)*]}) => {
        $($attr)*
        fn $name $($gen)* ($($params)*) $($ret)*;
    };
    (@hook {$guard:tt $rule:ident [$($attr:tt)*] $name:ident [$($gen:tt)*] [$($params:tt)*] [$($ret:tt)*]}) => {
        $($attr)*
        #[allow(unused_variables)]
        fn $name $($gen)* ($($params)*) $($ret)* {
            $crate::ext::hook_registry!(@no_op $rule)
        }
    };

    // The guard, to what the registry's methods need: the `neg` parameter (or none), the
    // argument passing it on, the condition (none: always) and the words for the docs. One
    // expansion writes every `neg`, so they are one variable.
    (@guard [$($then:tt)*] {[] $($hook:tt)*}) => {
        $crate::ext::hook_registry!($($then)* [] [] [] ["every extension"] $($hook)*);
    };
    (@guard [$($then:tt)*] {[negotiated] $($hook:tt)*}) => {
        $crate::ext::hook_registry!($($then)*
            [neg: $crate::ext::Negotiated,] [neg,] [neg.has(E::BIT)]
            ["each extension `neg` has"] $($hook)*);
    };
    (@guard [$($then:tt)*] {[judges(negotiated, $($args:tt)*)] $($hook:tt)*}) => {
        $crate::ext::hook_registry!($($then)*
            [neg: $crate::ext::Negotiated,] [neg,] [E::judges(neg, $($args)*)]
            ["each extension that judges the result (`ExtensionHooks::judges`, of `neg`)"] $($hook)*);
    };
    (@guard [$($then:tt)*] {[judges($($args:tt)*)] $($hook:tt)*}) => {
        $crate::ext::hook_registry!($($then)*
            [] [] [E::judges($($args)*)]
            ["each extension that judges the result (`ExtensionHooks::judges`)"] $($hook)*);
    };

    // The hook in the registry trait.
    (@registry_fn $Hooks:ident [$($neg:tt)*] $pass:tt $when:tt [$asked:literal]
        $rule:ident [$($attr:tt)*] $name:ident [$($gen:tt)*] [$($params:tt)*] [$($ret:tt)*]
    ) => {
        $($attr)*
        #[doc = ""]
        #[doc = concat!(
            "Over the registry: [`", stringify!($Hooks), "::", stringify!($name), "`] of ", $asked,
            ", in order; ", $crate::ext::hook_registry!(@doc $rule), "."
        )]
        #[allow(clippy::too_many_arguments)]
        fn $name $($gen)* ($($neg)* $($params)*) $($ret)*;
    };
    // In the registry's `()` impl: the rule's no-op.
    (@nil_fn [$($neg:tt)*] $pass:tt $when:tt $asked:tt
        $rule:ident [$($attr:tt)*] $name:ident [$($gen:tt)*] [$($params:tt)*] [$($ret:tt)*]
    ) => {
        $($attr)*
        #[inline]
        #[allow(unused_variables, clippy::too_many_arguments)]
        fn $name $($gen)* ($($neg)* $($params)*) $($ret)* {
            $crate::ext::hook_registry!(@no_op $rule)
        }
    };
    // In the registry's `(E, Rest)` impl: `E` where the guard holds, then the rest, combined.
    (@cons_fn [$($neg:tt)*] [$($pass:tt)*] $when:tt $asked:tt
        $rule:ident [$($attr:tt)*] $name:ident [$($gen:tt)*] [$($params:tt)*] [$($ret:tt)*]
    ) => {
        $($attr)*
        #[inline]
        #[allow(clippy::too_many_arguments)]
        fn $name $($gen)* ($($neg)* $($params)*) $($ret)* {
            $crate::ext::hook_registry!(@combine $rule $when
                ($crate::ext::hook_registry!(@call E $name 0 [] $($params)*))
                ($crate::ext::hook_registry!(@call Rest $name 1 [$($pass)*] $($params)*)))
        }
    };

    // The call of `$T::$name` with the hook's parameters, a state slot as its field `$field`.
    (@call $T:ident $name:ident $field:tt [$($args:tt)*]) => {
        $T::$name($($args)*)
    };
    (@call $T:ident $name:ident $field:tt [$($args:tt)*]
        $p:ident: &mut Self::$Slot:ident $(, $($rest:tt)*)?
    ) => {
        $crate::ext::hook_registry!(@call $T $name $field [$($args)* &mut $p.$field,] $($($rest)*)?)
    };
    (@call $T:ident $name:ident $field:tt [$($args:tt)*]
        $p:ident: &Self::$Slot:ident $(, $($rest:tt)*)?
    ) => {
        $crate::ext::hook_registry!(@call $T $name $field [$($args)* &$p.$field,] $($($rest)*)?)
    };
    (@call $T:ident $name:ident $field:tt [$($args:tt)*] $p:ident: $t:ty $(, $($rest:tt)*)?) => {
        $crate::ext::hook_registry!(@call $T $name $field [$($args)* $p,] $($($rest)*)?)
    };

    // `E`'s answer (its no-op where the guard does not hold) and the rest's, combined.
    (@combine $rule:ident [] ($mine:expr) ($rest:expr)) => {
        $crate::ext::hook_registry!(@join $rule $mine, $rest)
    };
    (@combine $rule:ident [$when:expr] ($mine:expr) ($rest:expr)) => {
        $crate::ext::hook_registry!(@join $rule
            if $when { $mine } else { $crate::ext::hook_registry!(@no_op $rule) }, $rest)
    };
    (@join first_some $mine:expr, $rest:expr) => {{
        if let Some(found) = $mine {
            return Some(found);
        }
        $rest
    }};
    (@join any $mine:expr, $rest:expr) => {
        $mine || $rest
    };
    (@join each $mine:expr, $rest:expr) => {{
        $mine;
        $rest
    }};
    (@join slots $mine:expr, $rest:expr) => {
        ($mine, $rest)
    };
    (@join sum $mine:expr, $rest:expr) => {
        $mine + $rest
    };

    (@no_op first_some) => { None };
    (@no_op any) => { false };
    (@no_op each) => {{}};
    (@no_op slots) => { Default::default() };
    (@no_op sum) => { 0 };

    (@doc first_some) => { "the first `Some` wins, the rest is not asked" };
    (@doc any) => { "`true` when one is, the rest is not asked" };
    (@doc each) => { "every one is called" };
    (@doc slots) => { "each answer in its slot" };
    (@doc sum) => { "the sum" };
}

pub(crate) use hook_registry;
