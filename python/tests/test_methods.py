"""The client's list of methods is the binary's: read from
``llpfc methods --json``, never kept here. Oracle: the binary's own text
listing (``llpfc methods``), parsed independently."""

import os
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "python"))

import llpfc  # noqa: E402


class MethodsTest(unittest.TestCase):
    def test_names_are_the_binarys(self):
        text = subprocess.run([llpfc.find_binary(), "methods"], capture_output=True, text=True, check=True).stdout
        listed = [line.split(" ", 1)[0] for line in text.splitlines() if line and not line.startswith(" ")]
        self.assertEqual(llpfc.method_names(), listed)
        self.assertIn("llpfc-uniform", listed)
        self.assertIn("sqprop", listed, "a method registered in the binary is known here with no change")

    def test_descriptors_say_what_a_minibatch_counts(self):
        by_name = {m["name"]: m for m in llpfc.methods()}
        self.assertEqual(by_name["llpfc-uniform"]["batch_unit"], "instances")
        self.assertEqual(by_name["kl"]["batch_unit"], "bags")
        self.assertTrue(by_name["supervised"]["uses_labels"])
        self.assertFalse(by_name["kl"]["uses_labels"])
        for m in by_name.values():
            self.assertGreater(m["default_batch"], 0, m["name"])
            self.assertTrue(m["search_lr"], m["name"])
        self.assertIsNot(llpfc.methods(), llpfc.methods(), "each call a copy: a caller's edit does not stick")


class MethodCheckTest(unittest.TestCase):
    def test_unknown_method_named_before_any_work(self):
        import numpy as np
        clf = llpfc.LLPClassifier(method="no-such-method", epochs=1)
        with self.assertRaises(ValueError) as cm:
            clf.fit(np.zeros((4, 2)), bags=np.array([0, 0, 1, 1]), proportions=np.array([[1.0, 0.0], [0.0, 1.0]]))
        msg = str(cm.exception)
        self.assertIn("method='no-such-method'", msg)
        self.assertIn("sqprop", msg, "the binary's list, a method added there included")


if __name__ == "__main__":
    unittest.main()
