"""A small package autodoc documents in the object tests (tests/test_objects.py,
tests/test_objects_installed.py): classes, methods, an inherited docstring, instance
attributes and a docstring built at run time."""

SHAPES = '''"""Shapes: a package for the ``autoclass_content`` test."""


class Circle:
    """A circle in the plane."""

    def __init__(self, radius):
        """Make a circle of the given ``radius``."""
        self.radius = radius

    def area(self):
        """Return the circle's area."""
        return 3.14159 * self.radius**2


class Square:
    """A square."""

    def area(self):
        """Return the square's area."""
        return 1.0


def scale(x):
    return x


scale.__doc__ = "Scale ``x``: a docstring built at run time."


class _Base:
    def area(self):
        """The area of the shape, in square units."""


class Unit(_Base):
    """The unit square."""

    def area(self):
        return 1.0


class Labelled:
    """A shape with a label."""

    def __init__(self, label):
        #: The label shown next to the shape.
        self.label = label
        self.hidden = False
        """Whether the shape is drawn."""
'''
