"""The flags of a command as the keywords of its `experiments.api`
function: the API names its keywords as the command's flags, so the
command passes each flag under its own name and never lists them."""

import inspect
from typing import Any, Callable, Dict

from absl import flags


def flag_keywords(function: Callable[..., Any], **given: Any
                 ) -> Dict[str, Any]:
  """`given`, plus every parameter of `function` that is a defined flag,
  with the flag's value (`given` wins: namespaces such as `--config.*`,
  or values the command computes)."""
  values = {name: flags.FLAGS[name].value
            for name in inspect.signature(function).parameters
            if name in flags.FLAGS and name not in given}
  return {**values, **given}
