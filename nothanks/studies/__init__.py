"""Studies: the suite's questions that run models, searches or games on top of the
experiments and read their logs with the analysis.

One module (or subpackage) per study, imported by name (each brings its own heavy
dependencies):

- :mod:`.inference`: which order of theory of mind a participant plays (order inference
  from the logged decisions);
- :mod:`.move_quality`: every logged move graded by the search;
- :mod:`.placebo`: the false-positive rate of the significance flags on identical players;
- :mod:`.tournament`: rated tournaments between agents;
- :mod:`.calibration`: fitting the models' free parameters to the thesis's numbers.
"""
