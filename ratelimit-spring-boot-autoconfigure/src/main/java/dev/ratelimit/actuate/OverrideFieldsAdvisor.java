package dev.ratelimit.actuate;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.OperationType;
import org.springframework.boot.actuate.endpoint.invoke.OperationInvoker;
import org.springframework.boot.actuate.endpoint.invoke.OperationInvokerAdvisor;
import org.springframework.boot.actuate.endpoint.invoke.OperationParameter;
import org.springframework.boot.actuate.endpoint.invoke.OperationParameters;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

/**
 * Answers 400 to a write to the {@code ratelimits} endpoint that carries a field the operation does not take, such
 * as {@code {"limt": 5}}: Actuator would otherwise ignore it and apply the rest, or nothing.
 */
public class OverrideFieldsAdvisor implements OperationInvokerAdvisor {

	private static final EndpointId ENDPOINT = EndpointId.of("ratelimits");

	@Override
	public OperationInvoker apply(EndpointId endpointId, OperationType operationType, OperationParameters parameters,
			OperationInvoker invoker) {
		if (!ENDPOINT.equals(endpointId) || operationType != OperationType.WRITE) {
			return invoker;
		}
		Set<String> known = parameters.stream().map(OperationParameter::getName).collect(Collectors.toSet());
		List<String> fields = parameters.stream()
			.filter((parameter) -> parameter.getAnnotation(
					org.springframework.boot.actuate.endpoint.annotation.Selector.class) == null)
			.map(OperationParameter::getName)
			.toList();
		return (context) -> {
			Set<String> unknown = new TreeSet<>(context.getArguments().keySet());
			unknown.removeAll(known);
			if (unknown.isEmpty()) {
				return invoker.invoke(context);
			}
			return new WebEndpointResponse<>(Map.of("error", "Bad Request", "status", 400, "reason",
					"unknown field" + ((unknown.size() > 1) ? "s " : " ") + unknown.stream()
						.map((name) -> "'" + name + "'").collect(Collectors.joining(", "))
							+ "; the fields are " + String.join(", ", fields)),
					WebEndpointResponse.STATUS_BAD_REQUEST);
		};
	}

}
